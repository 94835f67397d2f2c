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
    std::deque<peer_id> closing; // connections whose remote end goes away at the next poll, first

    void send(peer_id peer, wire::channel ch, std::span<const std::byte> data) override {
        wire::reject_msg r;
        if (ch == wire::channel::control && wire::decode(data, r)) rejects[peer].push_back(r);
    }
    void disconnect(peer_id peer) override { disconnected.push_back(peer); }
    void poll(std::uint64_t, transport_handler &h) override {
        for (; !closing.empty(); closing.pop_front()) h.on_disconnect(closing.front());
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

std::vector<std::byte> hello_bytes(std::vector<std::byte> token = {}, bool spectator = false,
                                   reconnect_token back = {}) {
    wire::hello_msg h;
    h.join_token = std::move(token);
    h.spectator = spectator;
    h.reconnect_token = back;
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

/// Host options in token mode, admitting the tokens @p issuer signs.
host_options token_mode(const test::token_issuer &issuer) {
    auto o = test::local_options();
    o.fleet = issuer.fleet;
    o.token_keys = {public_key_of(issuer.key)};
    return o;
}

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
    CHECK(a.name == "ann");              // the token's name, for the session's events and logs
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
    // Peer 1's session seats it: its place is taken by a player now, not by a routing.
    CHECK(r.gate->session_hook(0)(1, wire::hello_msg{}).allowed);
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
    auto o = token_mode(issuer);
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
    auto o = token_mode(issuer);
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

TEST_CASE("admission: open mode holds a place for each routed connection until its session answers or it ends",
          "[host][admission]") {
    auto o = test::local_options();
    o.open_matches = 2;
    rig r{o};
    REQUIRE(r.host.open("open-1", test::params_of(2, 1)).ok());
    const std::size_t route = r.host.slots[0].route;
    r.arrive(1, hello_bytes());
    r.arrive(2, hello_bytes());
    r.arrive(3, hello_bytes());
    r.pump(1 * s);
    CHECK_FALSE(r.rejected(1).has_value());
    CHECK_FALSE(r.rejected(2).has_value());
    CHECK(r.rejected(3) == wire::reject_reason::match); // both places held by routings
    CHECK(r.gate->routed(0) == 2);
    // Peer 1's session refuses it (a wrong schema, say) through its route: its place is free at
    // once, not after hello_timeout_ms.
    r.mux->route(route).disconnect(1);
    r.arrive(5, hello_bytes());
    r.pump(1 * s + 1000);
    CHECK_FALSE(r.rejected(5).has_value());
    // The session seats peer 5, routed last: that place becomes a player's, peer 2 keeps its own.
    CHECK(r.gate->session_hook(0)(5, wire::hello_msg{}).allowed);
    r.host.slots[0].players = 1;
    CHECK(r.gate->routed(0) == 1);
    r.arrive(6, hello_bytes());
    r.pump(1 * s + 2000);
    CHECK(r.rejected(6) == wire::reject_reason::match);
    // Peer 2's remote end goes away before its session answers: its place is free too.
    r.t->closing.push_back(2);
    r.arrive(7, hello_bytes());
    r.pump(1 * s + 3000);
    CHECK_FALSE(r.rejected(7).has_value());
    CHECK(r.gate->routed(0) == 1);
    // A session that never answers (not polled yet) holds the place at most hello_timeout_ms.
    r.gate->set_now(1 * s + 3000 + o.session.hello_timeout_ms * 1000ull + 1);
    CHECK(r.gate->routed(0) == 0);
}

TEST_CASE("admission: open mode drops an address's hellos past its budget, unanswered, and counts why",
          "[host][admission]") {
    auto o = test::local_options();
    o.open_matches = 2;
    o.hellos_per_second = 1;
    o.hello_burst = 2;
    rig r{o};
    REQUIRE(r.host.open("open-1", test::params_of(8, 1)).ok());
    for (peer_id p = 0; p < 12; p += 4) r.arrive(p, hello_bytes()); // one address (10.0.0.0)
    r.arrive(1, hello_bytes());                                     // another
    r.pump(1 * s);
    CHECK(std::count(r.t->disconnected.begin(), r.t->disconnected.end(), 0) == 0);
    CHECK(std::count(r.t->disconnected.begin(), r.t->disconnected.end(), 4) == 0);
    CHECK(std::count(r.t->disconnected.begin(), r.t->disconnected.end(), 8) == 1);
    CHECK_FALSE(r.rejected(8).has_value()); // no reply
    CHECK(std::count(r.t->disconnected.begin(), r.t->disconnected.end(), 1) == 0);
    CHECK(r.gate->routed(0) == 3);
    CHECK(r.gate->refusals() == 1);
    CHECK(r.gate->refusals_by_reason().hello_budget == 1);
    // A second later the bucket has refilled by one.
    r.arrive(12, hello_bytes());
    r.pump(2 * s);
    CHECK(std::count(r.t->disconnected.begin(), r.t->disconnected.end(), 12) == 0);
}

TEST_CASE("admission: a join token admits one connection at a time and comes back once it has ended",
          "[host][admission]") {
    test::token_issuer issuer;
    auto o = token_mode(issuer);
    rig r{o};
    const auto params = test::params_of(2, 9);
    const auto tok = issuer.sign(issuer.token("m1", 1, 77, params));
    r.arrive(1, hello_bytes(tok));
    r.pump(1 * s);
    REQUIRE_FALSE(r.rejected(1).has_value());
    // While that connection lasts, the same token without the slot's reconnect token is refused.
    r.arrive(2, hello_bytes(tok));
    r.pump(2 * s);
    CHECK(r.rejected(2) == wire::reject_reason::join_token);
    // ... with a reconnect token it goes on to the session, which checks that token.
    r.arrive(3, hello_bytes(tok, false, reconnect_token::generate()));
    r.pump(2 * s + 1);
    CHECK_FALSE(r.rejected(3).has_value());
    // Its session refuses peer 3 (a wrong reconnect token): peer 1 still holds the token.
    r.mux->route(r.host.slots[0].route).disconnect(3);
    r.arrive(5, hello_bytes(tok));
    r.pump(2 * s + 2);
    CHECK(r.rejected(5) == wire::reject_reason::join_token);
    // Peer 1 drops before its welcome arrived: the player retries with the same join token, and
    // the session gets its slot and identity.
    r.t->closing.push_back(1);
    r.arrive(4, hello_bytes(tok));
    r.pump(3 * s);
    CHECK_FALSE(r.rejected(4).has_value());
    const auto a = r.gate->session_hook(0)(4, wire::hello_msg{});
    CHECK(a.allowed);
    CHECK(a.slot == 1);
    CHECK(a.player_id == 77);
    // A spectator who left comes back with its token, one connection at a time.
    auto st = issuer.token("m1", spectator_slot, 80, params);
    st.role = token_role::spectator;
    const auto spectator = issuer.sign(st);
    r.arrive(10, hello_bytes(spectator, true));
    r.pump(4 * s);
    CHECK_FALSE(r.rejected(10).has_value());
    r.arrive(11, hello_bytes(spectator, true));
    r.pump(5 * s);
    CHECK(r.rejected(11) == wire::reject_reason::join_token);
    r.t->closing.push_back(10);
    r.arrive(12, hello_bytes(spectator, true));
    r.pump(6 * s);
    CHECK_FALSE(r.rejected(12).has_value());
    CHECK(r.gate->session_hook(0)(12, wire::hello_msg{}).allowed);
    // A used token never opens a match: its match gone, it is refused, not reopened.
    r.host.slots[0] = {};
    r.t->closing.push_back(4);
    r.arrive(13, hello_bytes(tok));
    r.pump(7 * s);
    CHECK(r.rejected(13) == wire::reject_reason::join_token);
    CHECK(r.host.opened == std::vector<std::string>{"m1"});
    const auto &counts = r.gate->refusals_by_reason();
    CHECK(counts.by_reason[static_cast<std::size_t>(wire::reject_reason::join_token)] == 4);
    CHECK(r.gate->refusals() == 4);
}

TEST_CASE("admission: an ended match stays ended however many others end after it, and each end is "
          "handed to the ledger with its tokens' expiry",
          "[host][admission]") {
    test::token_issuer issuer;
    auto o = token_mode(issuer);
    o.clock_skew_s = 30;
    rig r{o};
    std::vector<std::pair<std::string, std::uint64_t>> persisted;
    r.gate->persist_ended = [&](const std::string &id, std::uint64_t until) { persisted.emplace_back(id, until); };
    auto first = issuer.token("first", 0, 1, test::params_of(2, 9));
    auto later = issuer.token("first", 1, 2, test::params_of(2, 9));
    later.expires_at = first.expires_at + 100;
    r.arrive(1, hello_bytes(issuer.sign(first)));
    r.arrive(2, hello_bytes(issuer.sign(later)));
    r.pump(1 * s);
    REQUIRE(r.host.opened == std::vector<std::string>{"first"});
    r.gate->match_ended(0, "first");
    r.host.slots[0] = {};
    // Refused until the latest expiry of the tokens that came in, plus the clock skew.
    REQUIRE(persisted.size() == 1);
    CHECK(persisted[0] == std::pair<std::string, std::uint64_t>{"first", later.expires_at + 30});
    // Five thousand more matches end (more than any in-memory cap the host ever had).
    for (int i = 0; i < 5000; ++i) r.gate->match_ended(1, "other-" + std::to_string(i));
    CHECK(r.gate->ended().size() == 5001);
    // The first match's own token, and a new token for it, are refused as ended; nothing opens.
    auto fresh = issuer.token("first", 1, 3, test::params_of(2, 9));
    fresh.expires_at = later.expires_at + 500;
    r.arrive(3, hello_bytes(issuer.sign(first)));
    r.arrive(4, hello_bytes(issuer.sign(fresh)));
    r.pump(2 * s);
    CHECK(r.rejected(3) == wire::reject_reason::match);
    CHECK(r.rejected(4) == wire::reject_reason::match);
    CHECK(r.host.opened.size() == 1);
    // The token that expires later keeps the id ended that much longer, in the ledger too.
    CHECK(persisted.back() == std::pair<std::string, std::uint64_t>{"first", fresh.expires_at + 30});
}
