// Admission: routing by the first packet, the hello budget, join tokens and their replay cache,
// the tickets a session redeems, the rate-limited refusal log (docs/hosting.md, "Inside the
// host"). A scripted transport delivers connections; a stand-in host holds the matches.
#include <catch2/catch.hpp>

#include <retcon/net/protocol.hpp>
#include <retcon/net/transport_mux.hpp>

#include <deque>
#include <map>

#include "admission.hpp"
#include "host/host_fixture.hpp"

using namespace retcon;

namespace {

constexpr std::uint64_t s = 1'000'000; // µs

/// A transport whose connections are scripted: each queued hello arrives from a new peer.
class scripted_transport final : public transport {
public:
    struct arrival {
        peer_id peer;
        wire::channel ch;
        std::vector<std::byte> data;
    };
    std::deque<arrival> arriving;
    std::map<peer_id, std::vector<wire::reject_msg>> rejects;
    std::vector<peer_id> disconnected;

    void send(peer_id peer, wire::channel ch, std::span<const std::byte> data) override {
        wire::reject_msg r;
        if (ch == wire::channel::control && wire::decode(data, r)) rejects[peer].push_back(r);
    }
    void disconnect(peer_id peer) override { disconnected.push_back(peer); }
    void poll(std::uint64_t, transport_handler &h) override {
        while (!arriving.empty()) {
            auto a = std::move(arriving.front());
            arriving.pop_front();
            h.on_connect(a.peer);
            h.on_receive(a.peer, a.ch, a.data);
        }
    }
    [[nodiscard]] std::string peer_address(peer_id peer) const override {
        return "10.0.0." + std::to_string(peer % 4) + ":" + std::to_string(40000 + peer);
    }
};

/// The host as admission sees it: places of matches with player counts, opened on demand.
struct stand_in_host final : admission_host {
    struct place {
        bool used = false, ending = false;
        std::string id;
        match_params params;
        int players = 0;
        std::size_t route = 0;
    };
    transport_mux *mux = nullptr;
    std::vector<place> slots;
    bool is_draining = false, at_limit = false;
    std::vector<std::string> opened;

    explicit stand_in_host(std::size_t n) : slots(n) {}
    std::size_t places() const override { return slots.size(); }
    bool running(std::size_t i) const override { return slots[i].used && !slots[i].ending; }
    int players(std::size_t i) const override { return slots[i].players; }
    std::uint32_t player_slots(std::size_t i) const override { return slots[i].params.players; }
    bool knows(std::size_t, const reconnect_token &) const override { return false; }
    std::optional<std::size_t> find(const std::string &id) const override {
        for (std::size_t i = 0; i < slots.size(); ++i)
            if (slots[i].used && slots[i].id == id) return i;
        return std::nullopt;
    }
    bool ending(std::size_t i) const override { return slots[i].ending; }
    const match_params &params(std::size_t i) const override { return slots[i].params; }
    std::size_t route_of(std::size_t i) const override { return slots[i].route; }
    bool draining() const override { return is_draining; }
    bool limit_reached() const override { return at_limit; }
    result<std::size_t> open(const std::string &id, const match_params &p) override {
        for (std::size_t i = 0; i < slots.size(); ++i) {
            if (slots[i].used) continue;
            slots[i] = place{true, false, id, p, 0, mux->add_route()};
            opened.push_back(id);
            return i;
        }
        return result<std::size_t>{errc::invalid_argument, "the server is full"};
    }
};

std::vector<std::byte> hello_bytes(std::vector<std::byte> token = {}, bool spectator = false) {
    wire::hello_msg h;
    h.join_token = std::move(token);
    h.spectator = spectator;
    std::vector<std::byte> out;
    wire::encode(h, out);
    return out;
}

struct rig {
    host_options opt;
    scripted_transport *t = nullptr;
    std::unique_ptr<transport_mux> mux;
    stand_in_host host{2};
    std::vector<std::string> log;
    std::unique_ptr<admission> gate;

    explicit rig(host_options o) : opt{std::move(o)} {
        auto base = std::make_unique<scripted_transport>();
        t = base.get();
        mux = std::make_unique<transport_mux>(std::move(base));
        host.mux = mux.get();
        gate = std::make_unique<admission>(opt, *mux, host, [this](std::string_view l) { log.emplace_back(l); });
    }
    void arrive(peer_id peer, std::vector<std::byte> data, wire::channel ch = wire::channel::control) {
        t->arriving.push_back({peer, ch, std::move(data)});
    }
    void pump(std::uint64_t now_us) {
        gate->set_now(now_us);
        mux->poll(now_us / 1000, *gate);
    }
    [[nodiscard]] std::optional<wire::reject_reason> rejected(peer_id peer) const {
        const auto it = t->rejects.find(peer);
        if (it == t->rejects.end() || it->second.empty()) return std::nullopt;
        return it->second.back().reason;
    }
};

} // namespace

TEST_CASE("admission: a hello budget allows a burst per address, then its refill rate", "[host][admission]") {
    hello_budget b{10, 3};
    CHECK(b.allow("10.0.0.1:1000", 0));
    CHECK(b.allow("10.0.0.1:1001", 0)); // another port of the same address draws on the same bucket
    CHECK(b.allow("10.0.0.1:1002", 0));
    CHECK_FALSE(b.allow("10.0.0.1:1003", 0));
    CHECK(b.allow("10.0.0.2:1000", 0));      // another address has its own
    CHECK(b.allow("10.0.0.1:1004", s / 10)); // a tenth of a second refills one
    CHECK_FALSE(b.allow("10.0.0.1:1004", s / 10));
    CHECK(b.addresses() == 2);
    b.forget_refilled(10 * s);
    CHECK(b.addresses() == 0);
}

TEST_CASE("admission: refusals are logged at most once a second, with the count held back", "[host][admission]") {
    std::vector<std::string> lines;
    refusal_log r{[&](std::string_view l) { lines.emplace_back(l); }};
    r.note("bad token", 5 * s);
    r.note("bad token", 5 * s + 1);
    r.note("bad token", 5 * s + 2);
    CHECK(lines.size() == 1);
    r.flush_quiet(5 * s + s / 2); // not quiet for a second yet
    CHECK(lines.size() == 1);
    r.flush_quiet(6 * s);
    REQUIRE(lines.size() == 2);
    CHECK(lines[1] == "refused: 2 more connections refused since the last report");
    r.note("late", 6 * s + 10);
    r.note("later", 7 * s + 10);
    REQUIRE(lines.size() == 3);
    CHECK(lines[2] == "refused: later (and 1 more refused since the last report)");
    CHECK(r.refusals() == 5);
}

TEST_CASE("admission: a ticket is redeemed once, by its own match, and expires", "[host][admission]") {
    admission_tickets t;
    t.issue(7, {1, 3, 42, 0, "ann"});
    CHECK_FALSE(t.redeem(0, 7).allowed); // another match's session
    const auto a = t.redeem(1, 7);
    CHECK(a.allowed);
    CHECK(a.slot == 3);
    CHECK(a.player_id == 42);
    CHECK(a.name == "ann"); // the token's name, for the session's events and logs
    CHECK_FALSE(t.redeem(1, 7).allowed); // once
    t.issue(8, {1, 0, 1, 0, {}});
    t.issue(9, {0, 0, 2, 5 * s, {}});
    t.drop_match(1);
    CHECK(t.size() == 1);
    t.expire(6 * s, 2 * s);
    CHECK(t.size() == 1);
    t.expire(8 * s, 2 * s);
    CHECK(t.size() == 0);
}

TEST_CASE("admission: open mode routes by the first packet and refuses with a reason", "[host][admission]") {
    auto o = test::local_options();
    o.open_matches = 2;
    rig r{o};
    REQUIRE(r.gate->open_mode());
    REQUIRE(r.host.open("open-1", test::params_of(1, 1)).ok());
    r.arrive(1, hello_bytes());
    r.arrive(2, hello_bytes()); // the only slot is routed to peer 1 and not joined yet
    r.arrive(3, {std::byte{0xff}});
    r.arrive(4, hello_bytes(), wire::channel::inputs);
    r.pump(1 * s);
    CHECK_FALSE(r.rejected(1).has_value());
    CHECK(r.rejected(2) == wire::reject_reason::match);
    CHECK(std::count(r.t->disconnected.begin(), r.t->disconnected.end(), 3) == 1); // malformed: no reply
    CHECK(std::count(r.t->disconnected.begin(), r.t->disconnected.end(), 4) == 1); // not a hello first
    CHECK(r.gate->admissions() == 1);
    CHECK(r.gate->refusals() == 3);
    // Peer 1 joined: its place is taken by a player now, not by a routing.
    r.gate->player_joined(0);
    r.host.slots[0].players = 1;
    r.arrive(5, hello_bytes());
    r.pump(2 * s);
    CHECK(r.rejected(5) == wire::reject_reason::match);
    r.host.is_draining = true;
    r.arrive(6, hello_bytes());
    r.pump(3 * s);
    CHECK(r.rejected(6) == wire::reject_reason::draining);
}

TEST_CASE("admission: token mode opens the token's match, hands its slot to the session once, and "
          "gives a refused token's first use back",
          "[host][admission]") {
    test::token_issuer issuer;
    auto o = test::local_options();
    o.fleet = issuer.fleet;
    o.token_keys = {public_key_of(issuer.key)};
    rig r{o};
    REQUIRE_FALSE(r.gate->open_mode());
    const auto tok = issuer.sign(issuer.token("m1", 1, 77, test::params_of(2, 9)));
    r.arrive(1, hello_bytes(tok));
    r.pump(1 * s);
    REQUIRE(r.host.opened == std::vector<std::string>{"m1"});
    CHECK_FALSE(r.rejected(1).has_value());
    // The session asks about the connection routing admitted: the token's slot and identity, once.
    auto hook = r.gate->session_hook(0);
    const auto a = hook(1, wire::hello_msg{});
    CHECK(a.allowed);
    CHECK(a.slot == 1);
    CHECK(a.player_id == 77);
    CHECK_FALSE(hook(1, wire::hello_msg{}).allowed);
    // The same token again, without a reconnect token: already used.
    r.arrive(2, hello_bytes(tok));
    r.pump(2 * s);
    CHECK(r.rejected(2) == wire::reject_reason::join_token);
    // A draining host refuses a token for a new match, and gives its first use back.
    const auto tok2 = issuer.sign(issuer.token("m2", 0, 78, test::params_of(2, 9)));
    r.host.is_draining = true;
    r.arrive(3, hello_bytes(tok2));
    r.pump(3 * s);
    CHECK(r.rejected(3) == wire::reject_reason::draining);
    r.host.is_draining = false;
    r.arrive(4, hello_bytes(tok2));
    r.pump(4 * s);
    CHECK_FALSE(r.rejected(4).has_value());
    // An ended match's id is refused as ended.
    r.gate->match_ended(0, "m1");
    r.host.slots[0] = {};
    const auto tok3 = issuer.sign(issuer.token("m1", 0, 79, test::params_of(2, 9)));
    r.arrive(5, hello_bytes(tok3));
    r.pump(5 * s);
    CHECK(r.rejected(5) == wire::reject_reason::match);
    CHECK(r.gate->tickets().size() == 1); // peer 4's, not redeemed yet
}

TEST_CASE("admission: token mode drops an address's hellos past its budget, unanswered", "[host][admission]") {
    test::token_issuer issuer;
    auto o = test::local_options();
    o.fleet = issuer.fleet;
    o.token_keys = {public_key_of(issuer.key)};
    o.hellos_per_second = 1;
    o.hello_burst = 2;
    rig r{o};
    for (peer_id p = 0; p < 12; p += 4) r.arrive(p, hello_bytes({std::byte{1}})); // one address (10.0.0.0)
    r.pump(1 * s);
    CHECK(r.rejected(0) == wire::reject_reason::join_token); // checked, and refused for its token
    CHECK(r.rejected(4) == wire::reject_reason::join_token);
    CHECK_FALSE(r.rejected(8).has_value()); // not checked: no reply
    CHECK(std::count(r.t->disconnected.begin(), r.t->disconnected.end(), 8) == 1);
    CHECK(r.gate->refusals() == 3);
}
