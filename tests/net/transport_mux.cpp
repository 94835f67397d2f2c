#include <catch2/catch.hpp>

#include <common/counting_allocator.hpp>
#include <common/misuse.hpp>
#include <common/test_game.hpp>

#include <retcon/net/enet_transport.hpp>
#include <retcon/net/transport_mux.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {

std::uint64_t wall_ms() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count());
}

constexpr std::uint64_t give_up_ms = 10000; // a bound for hangs, not a performance threshold

std::span<const std::byte> bytes_of(std::string_view text) {
    return {reinterpret_cast<const std::byte *>(text.data()), text.size()};
}

void send_text(transport &t, peer_id peer, std::string_view text, wire::channel ch = wire::channel::control) {
    t.send(peer, ch, bytes_of(text));
}

// A transport the mux can own that forwards to one it does not (the simulated network keeps its
// server endpoint). After a poll it ends the connections in `violate` as a transport does one that
// broke its rules: on_violation, then on_disconnect.
class borrowed_transport final : public transport {
public:
    explicit borrowed_transport(transport &t) : t_{t} {}
    void send(peer_id p, wire::channel ch, std::span<const std::byte> d) override { t_.send(p, ch, d); }
    void disconnect(peer_id p) override { t_.disconnect(p); }
    void admit(peer_id p) override { t_.admit(p); }
    void poll(std::uint64_t now, transport_handler &h) override {
        t_.poll(now, h);
        for (const auto &[p, text] : violate) {
            t_.disconnect(p);
            h.on_violation(p, text);
            h.on_disconnect(p);
        }
        violate.clear();
    }
    void flush() override { t_.flush(); }
    bool wait(std::chrono::microseconds timeout) override { return t_.wait(timeout); }
    transport_peer_stats peer_stats(peer_id p) const override { return t_.peer_stats(p); }
    std::string peer_address(peer_id p) const override { return t_.peer_address(p); }
    std::uint16_t local_port() const override { return t_.local_port(); }

    std::vector<std::pair<peer_id, std::string>> violate;

private:
    transport &t_;
};

// What a transport (or a route) delivered, in order: "connect 3", "recv 3 A1", "disconnect 3".
struct event_log final : transport_handler {
    std::vector<std::string> events;
    std::function<void(peer_id, const std::string &)> on_packet; // runs during delivery
    void on_connect(peer_id p) override { events.push_back("connect " + std::to_string(p)); }
    void on_disconnect(peer_id p) override { events.push_back("disconnect " + std::to_string(p)); }
    void on_violation(peer_id p, const std::string &text) override {
        events.push_back("violation " + std::to_string(p) + " " + text);
    }
    void on_receive(peer_id p, wire::channel, std::span<const std::byte> data) override {
        const std::string text(reinterpret_cast<const char *>(data.data()), data.size());
        events.push_back("recv " + std::to_string(p) + " " + text);
        if (on_packet) on_packet(p, text);
    }
    [[nodiscard]] bool saw(const std::string &e) const {
        return std::find(events.begin(), events.end(), e) != events.end();
    }
    [[nodiscard]] bool mentions(peer_id p) const {
        const std::string id = " " + std::to_string(p);
        return std::any_of(events.begin(), events.end(), [&](const std::string &e) {
            const auto at = e.find(id);
            return at != std::string::npos && (at + id.size() == e.size() || e[at + id.size()] == ' ');
        });
    }
};

// Routes by the first byte of the first packet: a tag in `tags` names a route; 'X' gets the
// reply "no" and is refused by the router; anything else gets no_route (the mux refuses it).
struct tag_router final : transport_router {
    transport_mux *mux = nullptr;
    std::map<char, std::size_t> tags;
    std::vector<std::string> first_packets;
    std::vector<std::pair<std::string, std::string>> closed; // address, reason
    std::size_t route(peer_id peer, wire::channel, std::span<const std::byte> first) override {
        first_packets.emplace_back(reinterpret_cast<const char *>(first.data()), first.size());
        const char tag = first.empty() ? '\0' : static_cast<char>(first[0]);
        if (const auto it = tags.find(tag); it != tags.end()) return it->second;
        if (tag == 'X') {
            mux->send_unrouted(peer, wire::channel::control, bytes_of("no"));
            mux->refuse(peer);
        }
        return no_route;
    }
    void on_unrouted_closed(const std::string &address, const std::string &reason) override {
        closed.emplace_back(address, reason);
    }
};

// A mux over the simulated network's server, its raw clients and the routes' logs, on a
// virtual clock. Client i is the server's peer i.
struct sim_rig {
    struct client {
        transport *t = nullptr;
        event_log log;
    };

    explicit sim_rig(mux_options options = {}) : mux{adopt_server(), options} { router.mux = &mux; }

    std::unique_ptr<transport> adopt_server() {
        auto t = std::make_unique<borrowed_transport>(net.server());
        base = t.get();
        return t;
    }

    client &add_client() {
        clients.push_back(std::make_unique<client>());
        clients.back()->t = &net.connect({}, {});
        return *clients.back();
    }

    std::size_t add_route(char tag) {
        const std::size_t r = mux.add_route();
        router.tags[tag] = r;
        logs[r];
        return r;
    }

    // One millisecond: clients poll, the mux polls, every route delivers.
    void step() {
        for (auto &c : clients) c->t->poll(now, c->log);
        mux.poll(now, router);
        for (auto &[r, log] : logs) mux.route(r).poll(now, log);
        ++now;
    }
    void run(std::uint64_t ms) {
        for (std::uint64_t i = 0; i < ms; ++i) step();
    }

    sim_network net{7};
    borrowed_transport *base = nullptr; // owned by mux
    transport_mux mux;
    tag_router router;
    std::vector<std::unique_ptr<client>> clients;
    std::map<std::size_t, event_log> logs; // route index -> what it delivered
    std::uint64_t now = 1;
};

} // namespace

// ---------------------------------------------------------------- transport::wait

TEST_CASE("transport::wait: the default sleeps and reports a timeout, the simulated network returns at once",
          "[net][wait]") {
    struct bare final : transport {
        void send(peer_id, wire::channel, std::span<const std::byte>) override {}
        void disconnect(peer_id) override {}
        void poll(std::uint64_t, transport_handler &) override {}
    } t;
    CHECK_FALSE(t.wait(std::chrono::microseconds{500}));
    sim_network net{1};
    CHECK_FALSE(net.server().wait(std::chrono::seconds{3600})); // would hang the test if it blocked
    CHECK_FALSE(net.connect({}, {}).wait(std::chrono::seconds{3600}));
}

TEST_CASE("ENet server transport: wait times out with no traffic, wakes when a client sends", "[net][enet][wait]") {
    auto server = make_enet_server(0, {}, "127.0.0.1");
    REQUIRE(server.ok());
    transport &s = **server;
    CHECK_FALSE(s.wait(std::chrono::milliseconds{20}));

    auto client = make_enet_client("127.0.0.1", s.local_port());
    REQUIRE(client.ok());
    transport &c = **client;
    event_log server_log, client_log;
    const auto start = wall_ms();
    while ((server_log.events.empty() || client_log.events.empty()) && wall_ms() - start < give_up_ms) {
        c.poll(wall_ms(), client_log);
        s.poll(wall_ms(), server_log);
        std::this_thread::sleep_for(std::chrono::milliseconds{1});
    }
    REQUIRE(server_log.saw("connect 0"));
    REQUIRE(client_log.saw("connect 0"));
    // Let the handshake's last acknowledgements settle, so the next datagram is the packet.
    for (int i = 0; i < 50; ++i) {
        c.poll(wall_ms(), client_log);
        s.poll(wall_ms(), server_log);
        std::this_thread::sleep_for(std::chrono::milliseconds{2});
    }
    s.poll(wall_ms(), server_log);
    const std::size_t before = server_log.events.size();

    send_text(c, 0, "ping");
    c.flush();
    CHECK(s.wait(std::chrono::milliseconds{200}));
    s.poll(wall_ms(), server_log);
    REQUIRE(server_log.events.size() == before + 1);
    CHECK(server_log.events.back() == "recv 0 ping");
}

// ---------------------------------------------------------------- transport_mux, simulated network

TEST_CASE("mux: each connection lands on the route the router chose, a route sees only its own", "[net][mux]") {
    sim_rig rig;
    const std::size_t a = rig.add_route('A');
    const std::size_t b = rig.add_route('B');
    CHECK(a != b);
    CHECK(rig.mux.routes() == 2);
    auto &ca = rig.add_client();
    auto &cb = rig.add_client();
    rig.run(2);
    CHECK(rig.mux.unrouted() == 2); // connected, nothing said yet: no route's business
    CHECK(rig.logs[a].events.empty());
    CHECK(rig.logs[b].events.empty());

    send_text(*ca.t, 0, "A1");
    send_text(*cb.t, 0, "B1");
    rig.run(2);
    send_text(*ca.t, 0, "A2", wire::channel::inputs);
    send_text(*cb.t, 0, "B2", wire::channel::snapshots);
    rig.run(2);
    CHECK(rig.mux.unrouted() == 0);
    CHECK(rig.logs[a].events == std::vector<std::string>{"connect 0", "recv 0 A1", "recv 0 A2"});
    CHECK(rig.logs[b].events == std::vector<std::string>{"connect 1", "recv 1 B1", "recv 1 B2"});
    CHECK(rig.router.first_packets == std::vector<std::string>{"A1", "B1"}); // asked once per connection

    // A route answers its own connection.
    send_text(rig.mux.route(a), 0, "hi A");
    rig.run(2);
    CHECK(ca.log.saw("recv 0 hi A"));
    CHECK_FALSE(cb.log.saw("recv 0 hi A"));

    // The client leaves: its route is told, nobody else.
    ca.t->disconnect(0);
    rig.run(2);
    CHECK(rig.logs[a].events.back() == "disconnect 0");
    CHECK_FALSE(rig.logs[b].mentions(0));
    CHECK(rig.router.closed.empty());
}

TEST_CASE("mux: a transport's violation report reaches the connection's route, before its disconnect", "[net][mux]") {
    sim_rig rig;
    const std::size_t a = rig.add_route('A');
    const std::size_t b = rig.add_route('B');
    auto &ca = rig.add_client();
    auto &cb = rig.add_client();
    send_text(*ca.t, 0, "A1");
    send_text(*cb.t, 0, "B1");
    rig.run(4);
    const std::uint64_t bytes_in = rig.mux.bytes_in(a);
    rig.base->violate.emplace_back(0, "sent a packet of 204800 bytes; the limit is 65536");
    rig.run(2);
    CHECK(rig.logs[a].events ==
          std::vector<std::string>{"connect 0", "recv 0 A1",
                                   "violation 0 sent a packet of 204800 bytes; the limit is 65536", "disconnect 0"});
    CHECK(rig.logs[b].events == std::vector<std::string>{"connect 1", "recv 1 B1"});
    CHECK(rig.mux.bytes_in(a) == bytes_in); // the report is no traffic
    CHECK(rig.router.closed.empty());

    // One no route took yet: the router hears the reason, once.
    rig.add_client();
    rig.run(2);
    REQUIRE(rig.mux.unrouted() == 1);
    rig.base->violate.emplace_back(2, "sent a packet of 204800 bytes; the limit is 65536");
    rig.run(2);
    CHECK(rig.mux.unrouted() == 0);
    REQUIRE(rig.router.closed.size() == 1);
    CHECK(rig.router.closed[0].second == "sent a packet of 204800 bytes; the limit is 65536");
}

TEST_CASE("mux: a route cannot send to, disconnect or admit another route's connection", "[net][mux]") {
    sim_rig rig;
    const std::size_t a = rig.add_route('A');
    const std::size_t b = rig.add_route('B');
    auto &ca = rig.add_client();
    auto &cb = rig.add_client();
    auto &idle = rig.add_client(); // connected, unrouted
    rig.run(1);
    send_text(*ca.t, 0, "A1");
    send_text(*cb.t, 0, "B1");
    rig.run(2);
    REQUIRE(rig.logs[b].saw("recv 1 B1"));

    transport &route_a = rig.mux.route(a);
    route_a.disconnect(1); // B's
    route_a.disconnect(2); // unrouted
    send_text(route_a, 1, "from A");
    send_text(route_a, 2, "from A");
    route_a.admit(1);
    rig.run(2);
    send_text(*cb.t, 0, "B2");
    rig.run(2);
    CHECK(rig.logs[b].saw("recv 1 B2")); // still connected, still on b
    CHECK_FALSE(cb.log.saw("disconnect 0"));
    CHECK_FALSE(cb.log.saw("recv 0 from A"));
    CHECK_FALSE(idle.log.saw("disconnect 0"));
    CHECK_FALSE(idle.log.saw("recv 0 from A"));
    CHECK(rig.mux.unrouted() == 1);
    CHECK(rig.logs[a].events == std::vector<std::string>{"connect 0", "recv 0 A1"});
    // The mux's own unrouted calls leave routed connections alone too.
    rig.mux.send_unrouted(1, wire::channel::control, bytes_of("stray"));
    rig.mux.refuse(1);
    rig.run(2);
    CHECK_FALSE(cb.log.saw("recv 0 stray"));
    CHECK_FALSE(cb.log.saw("disconnect 0"));
}

TEST_CASE("mux: a route that disconnects a connection during delivery gets none of its later events", "[net][mux]") {
    sim_rig rig;
    const std::size_t a = rig.add_route('A');
    auto &ca = rig.add_client();
    rig.run(1);
    send_text(*ca.t, 0, "A1");
    send_text(*ca.t, 0, "A2");
    send_text(*ca.t, 0, "A3");
    rig.logs[a].on_packet = [&](peer_id p, const std::string &text) {
        if (text == "A2") rig.mux.route(a).disconnect(p);
    };
    rig.run(3);
    CHECK(rig.logs[a].events == std::vector<std::string>{"connect 0", "recv 0 A1", "recv 0 A2"});
    CHECK(ca.log.saw("disconnect 0"));
    CHECK(rig.mux.unrouted() == 0); // forgotten, not back to unrouted
    send_text(*ca.t, 0, "A4");
    rig.run(3);
    CHECK(rig.logs[a].events.size() == 3);
    CHECK(rig.router.first_packets.size() == 1);
}

TEST_CASE("mux: holds says whether a route still has a connection: routed, then disconnected, closed or removed",
          "[net][mux]") {
    sim_rig rig;
    const std::size_t a = rig.add_route('A');
    const std::size_t b = rig.add_route('B');
    auto &c0 = rig.add_client();
    auto &c1 = rig.add_client();
    auto &c2 = rig.add_client();
    rig.run(1);
    CHECK_FALSE(rig.mux.holds(a, 0)); // connected, not routed yet
    send_text(*c0.t, 0, "A1");
    send_text(*c1.t, 0, "A1");
    send_text(*c2.t, 0, "B1");
    rig.run(2);
    CHECK(rig.mux.holds(a, 0));
    CHECK(rig.mux.holds(a, 1));
    CHECK(rig.mux.holds(b, 2));
    CHECK_FALSE(rig.mux.holds(a, 2)); // another route's
    CHECK_FALSE(rig.mux.holds(7, 0)); // no such route
    rig.mux.route(a).disconnect(0);   // the route's session refused it
    CHECK_FALSE(rig.mux.holds(a, 0));
    c1.t->disconnect(0); // the remote end went away
    rig.run(3);
    CHECK_FALSE(rig.mux.holds(a, 1));
    rig.mux.remove_route(b);
    CHECK_FALSE(rig.mux.holds(b, 2));
}

TEST_CASE("mux: a refused connection gets the router's reply, then is disconnected", "[net][mux]") {
    sim_rig rig;
    rig.add_route('A');
    auto &refused = rig.add_client();   // 'X': the router replies and refuses
    auto &unknown = rig.add_client();   // 'Z': no_route without a word; the mux refuses
    auto &misrouted = rig.add_client(); // 'Q': a route that does not exist
    rig.router.tags['Q'] = 42;
    rig.run(1);
    send_text(*refused.t, 0, "X hello");
    send_text(*unknown.t, 0, "Z hello");
    send_text(*misrouted.t, 0, "Q hello");
    rig.run(3);
    CHECK(refused.log.saw("recv 0 no"));
    CHECK(refused.log.saw("disconnect 0"));
    CHECK(unknown.log.saw("disconnect 0"));
    CHECK_FALSE(unknown.log.saw("recv 0 no"));
    CHECK(misrouted.log.saw("disconnect 0"));
    CHECK(rig.mux.unrouted() == 0);
    // Refusals are the router's own decisions: only the impossible route is reported.
    REQUIRE(rig.router.closed.size() == 1);
    CHECK_THAT(rig.router.closed[0].second, Catch::Contains("route 42"));
    for (const auto &[r, log] : rig.logs) CHECK(log.events.empty());
    // Nothing more of them reaches the router.
    send_text(*refused.t, 0, "A sneaking in");
    rig.run(3);
    CHECK(rig.router.first_packets.size() == 3);
}

TEST_CASE("mux: a connection with nothing routable is dropped after unrouted_timeout_ms", "[net][mux]") {
    sim_rig rig{mux_options{500}};
    rig.add_route('A');
    auto &silent = rig.add_client();
    rig.step(); // connects at 1
    REQUIRE(rig.mux.unrouted() == 1);
    rig.run(499); // up to 500: 499 ms old
    CHECK(rig.mux.unrouted() == 1);
    CHECK_FALSE(silent.log.saw("disconnect 0"));
    rig.run(2);
    CHECK(rig.mux.unrouted() == 0);
    CHECK(silent.log.saw("disconnect 0"));
    REQUIRE(rig.router.closed.size() == 1);
    CHECK(rig.router.closed[0].second == "no routable packet within 500 ms");

    // One that leaves before saying anything is reported too.
    auto &shy = rig.add_client();
    rig.run(2);
    REQUIRE(rig.mux.unrouted() == 1);
    shy.t->disconnect(0);
    rig.run(2);
    CHECK(rig.mux.unrouted() == 0);
    REQUIRE(rig.router.closed.size() == 2);
    CHECK(rig.router.closed[1].second == "connection closed before any route took it");
    CHECK(rig.router.first_packets.empty());
}

TEST_CASE("mux: remove_route disconnects its connections and drops their events, its index is reused", "[net][mux]") {
    sim_rig rig;
    const std::size_t a = rig.add_route('A');
    const std::size_t b = rig.add_route('B');
    auto &ca = rig.add_client();
    auto &cb = rig.add_client();
    rig.run(1);
    send_text(*ca.t, 0, "A1");
    send_text(*cb.t, 0, "B1");
    rig.run(2);
    REQUIRE(rig.logs[a].saw("recv 0 A1"));

    // Queued on a, not delivered yet, when a goes.
    send_text(*ca.t, 0, "A2");
    ca.t->poll(rig.now, ca.log);
    rig.mux.poll(rig.now, rig.router);
    rig.logs.erase(a);
    rig.mux.remove_route(a);
    CHECK(rig.mux.routes() == 1);
    REQUIRE_MISUSE((void)rig.mux.route(a), "names no route");
    REQUIRE_MISUSE(rig.mux.remove_route(a), "names no route");

    const std::size_t again = rig.mux.add_route();
    CHECK(again == a);
    rig.logs[again];
    rig.run(3);
    CHECK(ca.log.saw("disconnect 0"));
    CHECK(rig.logs[again].events.empty()); // nothing of the old route's connection
    send_text(*cb.t, 0, "B2");
    rig.run(2);
    CHECK(rig.logs[b].saw("recv 1 B2"));
    CHECK_FALSE(cb.log.saw("disconnect 0"));
}

TEST_CASE("mux: poll from inside a route's delivery or a router callback is misuse", "[net][mux]") {
    sim_rig rig;
    const std::size_t a = rig.add_route('A');
    auto &ca = rig.add_client();
    rig.run(1);
    send_text(*ca.t, 0, "A1");
    bool reported = false;
    rig.logs[a].on_packet = [&](peer_id, const std::string &) {
        throwing_misuse_handler handler;
        try {
            rig.mux.poll(rig.now, rig.router);
        } catch (const misuse_error &e) {
            reported = std::string(e.what()).find("route's poll") != std::string::npos;
        }
    };
    rig.run(2);
    CHECK(reported);
}

TEST_CASE("mux: steady-state polling allocates nothing", "[net][mux][allocations]") {
    sim_network net{11};
    transport_mux mux{std::make_unique<borrowed_transport>(net.server())};
    // Counters only: a log would allocate.
    struct counter final : transport_handler {
        transport *reply_to = nullptr; // answers every packet, as a session would
        std::size_t packets = 0;
        void on_connect(peer_id) override {}
        void on_disconnect(peer_id) override {}
        void on_receive(peer_id p, wire::channel ch, std::span<const std::byte> data) override {
            ++packets;
            if (reply_to) reply_to->send(p, ch, data);
        }
    };
    struct first_byte_router final : transport_router {
        std::size_t routes[2] = {};
        std::size_t route(peer_id, wire::channel, std::span<const std::byte> first) override {
            return routes[static_cast<std::size_t>(first[0]) % 2];
        }
    } router;
    router.routes[0] = mux.add_route();
    router.routes[1] = mux.add_route();
    counter at_route[2], at_client[4];
    for (int r = 0; r < 2; ++r) at_route[r].reply_to = &mux.route(router.routes[r]);
    const link_conditions link{10, 5, 0.0};
    transport *clients[4];
    for (auto &c : clients) c = &net.connect(link, link);
    std::uint64_t now = 1;
    const auto run = [&](std::uint64_t ms) {
        for (std::uint64_t end = now + ms; now < end; ++now) {
            for (std::size_t i = 0; i < 4; ++i) {
                clients[i]->poll(now, at_client[i]);
                const std::byte packet[8] = {static_cast<std::byte>(i), std::byte{1}, std::byte{2}};
                clients[i]->send(0, i % 2 ? wire::channel::inputs : wire::channel::control, packet);
            }
            mux.poll(now, router);
            for (int r = 0; r < 2; ++r) mux.route(router.routes[r]).poll(now, at_route[r]);
            mux.flush();
        }
    };
    run(2000); // warm up: every queue reaches its high-water mark
    const std::size_t before = at_route[0].packets + at_route[1].packets;
    std::size_t allocations = 0;
    {
        allocation_counter count;
        run(2000);
        allocations = count.count();
    }
    CHECK(at_route[0].packets + at_route[1].packets - before >= 4 * 1900);
    CHECK(at_client[0].packets > 1900);
    CHECK(allocations == 0);
}

// ---------------------------------------------------------------- sessions on routes

namespace {

// Routes a hello by the first letter of the player's name.
struct hello_router final : transport_router {
    std::map<char, std::size_t> by_initial;
    std::size_t route(peer_id, wire::channel ch, std::span<const std::byte> first) override {
        wire::hello_msg hello;
        if (ch != wire::channel::control || !wire::decode(first, hello) || hello.name.empty()) return no_route;
        const auto it = by_initial.find(hello.name[0]);
        return it == by_initial.end() ? no_route : it->second;
    }
};

struct match_on_route {
    explicit match_on_route(transport &t) {
        init_game(w);
        session = std::make_unique<server_session>(game_config(2), w, step_game, t);
        session->on_confirmed(
            [this](const frame_inputs &in, const world &, std::uint64_t h) { hashes[in.frame()] = h; });
    }
    world w{game_schema()};
    std::unique_ptr<server_session> session;
    std::map<std::uint32_t, std::uint64_t> hashes;
    std::vector<session_event> events;
};

struct player {
    world w{game_schema()};
    std::unique_ptr<client_session> session;
    bot input{1};
    std::map<std::uint32_t, std::uint64_t> hashes;
};

} // namespace

TEST_CASE("mux: two matches on one simulated server address each complete their handshakes and tick in sync",
          "[net][mux][session]") {
    sim_network net{5};
    transport_mux mux{std::make_unique<borrowed_transport>(net.server())};
    hello_router router;
    const std::size_t ra = mux.add_route();
    const std::size_t rb = mux.add_route();
    router.by_initial['a'] = ra;
    router.by_initial['b'] = rb;
    match_on_route match_a{mux.route(ra)};
    match_on_route match_b{mux.route(rb)};
    const link_conditions link{20, 5, 0.02};
    std::vector<std::unique_ptr<player>> players;
    for (const char *name : {"ann", "bob", "amy", "ben"}) {
        auto p = std::make_unique<player>();
        init_game(p->w);
        p->input.state = 0x9e3779b97f4a7c15ull * (players.size() + 1);
        client_options o;
        o.name = name;
        p->session = std::make_unique<client_session>(game_config(2), p->w, step_game, net.connect(link, link), o);
        auto *raw = p.get();
        p->session->on_confirmed_hash([raw](std::uint32_t f, std::uint64_t h) { raw->hashes[f] = h; });
        players.push_back(std::move(p));
    }
    for (std::uint64_t now = 1; now < 5000; ++now) {
        mux.poll(now, router);
        for (auto *m : {&match_a, &match_b}) {
            m->session->poll(now);
            while (m->session->should_tick(now)) m->session->tick();
            for (session_event ev; m->session->next_event(ev);) m->events.push_back(ev);
        }
        mux.flush();
        for (auto &p : players) {
            p->session->poll(now);
            while (p->session->should_tick(now)) p->session->tick(p->input.next());
        }
    }
    CHECK(mux.unrouted() == 0);
    for (auto *m : {&match_a, &match_b}) {
        CHECK(m->session->players() == 2);
        CHECK(std::count_if(m->events.begin(), m->events.end(),
                            [](const session_event &e) { return e.kind == session_event_kind::player_joined; }) == 2);
        CHECK(m->session->frame() > 200);
    }
    for (std::size_t i = 0; i < players.size(); ++i) {
        const player &p = *players[i];
        REQUIRE(p.session->state() == client_state::running);
        const auto &server_hashes = i % 2 == 0 ? match_a.hashes : match_b.hashes; // ann, amy: a
        std::size_t compared = 0, mismatched = 0;
        for (const auto &[f, h] : p.hashes) {
            const auto it = server_hashes.find(f);
            if (it == server_hashes.end()) continue;
            ++compared;
            mismatched += it->second != h ? 1u : 0u;
        }
        INFO("player " << i << ": frames compared " << compared);
        CHECK(compared > 200);
        CHECK(mismatched == 0);
    }
    // The matches' worlds differ (their players steer differently): each simulated only its own.
    CHECK(match_a.hashes.rbegin()->second != match_b.hashes.rbegin()->second);
}

// ---------------------------------------------------------------- transport_mux, ENet

TEST_CASE("mux over real ENet on loopback: routes, isolation and a refusal with its reply", "[net][mux][enet]") {
    auto base = make_enet_server(0, {}, "127.0.0.1");
    REQUIRE(base.ok());
    transport_mux mux{std::move(*base)};
    const std::uint16_t port = mux.local_port();
    REQUIRE(port != 0);
    tag_router router;
    router.mux = &mux;
    const std::size_t a = mux.add_route();
    const std::size_t b = mux.add_route();
    router.tags['A'] = a;
    router.tags['B'] = b;
    event_log at_a, at_b;
    CHECK(mux.route(a).local_port() == port);

    struct remote {
        std::unique_ptr<transport> t;
        event_log log;
        std::string hello;
        bool said = false;
    };
    std::vector<std::unique_ptr<remote>> remotes;
    for (const char *hello : {"A hello", "B hello", "X hello"}) {
        auto t = make_enet_client("127.0.0.1", port);
        REQUIRE(t.ok());
        remotes.push_back(std::make_unique<remote>(remote{std::move(*t), {}, hello}));
    }
    remote &ra = *remotes[0];
    remote &rb = *remotes[1];
    remote &rx = *remotes[2];
    peer_id peer_a = no_peer, peer_b = no_peer;
    const auto pump = [&] {
        const auto now = wall_ms();
        for (auto &r : remotes) {
            r->t->poll(now, r->log);
            if (!r->said && r->log.saw("connect 0")) {
                send_text(*r->t, 0, r->hello);
                r->said = true;
            }
        }
        mux.poll(now, router);
        mux.route(a).poll(now, at_a);
        mux.route(b).poll(now, at_b);
        mux.flush();
        (void)mux.wait(std::chrono::milliseconds{1});
    };
    const auto start = wall_ms();
    while (wall_ms() - start < give_up_ms &&
           (at_a.events.size() < 2 || at_b.events.size() < 2 || !rx.log.saw("disconnect 0")))
        pump();
    REQUIRE(at_a.events.size() >= 2);
    REQUIRE(at_b.events.size() >= 2);
    CHECK(at_a.events[1].ends_with(" A hello"));
    CHECK(at_b.events[1].ends_with(" B hello"));
    peer_a = static_cast<peer_id>(std::stoul(at_a.events[0].substr(8)));
    peer_b = static_cast<peer_id>(std::stoul(at_b.events[0].substr(8)));
    CHECK(at_a.events[0] == "connect " + std::to_string(peer_a));
    CHECK(peer_a != peer_b);

    // The refused client got the router's reply before its disconnect.
    const auto reply = std::find(rx.log.events.begin(), rx.log.events.end(), "recv 0 no");
    const auto bye = std::find(rx.log.events.begin(), rx.log.events.end(), "disconnect 0");
    CHECK(reply != rx.log.events.end());
    CHECK(bye != rx.log.events.end());
    CHECK(reply < bye);
    CHECK_FALSE(at_a.mentions(peer_b));
    CHECK_FALSE(at_b.mentions(peer_a));

    // Route a knows nothing of b's connection and cannot touch it.
    CHECK(mux.route(a).peer_address(peer_b).empty());
    CHECK_FALSE(mux.route(b).peer_address(peer_b).empty());
    mux.route(a).disconnect(peer_b);
    send_text(mux.route(a), peer_b, "from a");
    send_text(mux.route(b), peer_b, "from b");
    send_text(*ra.t, 0, "A again");
    send_text(*rb.t, 0, "B again");
    const auto second = wall_ms();
    while (wall_ms() - second < give_up_ms &&
           (!rb.log.saw("recv 0 from b") || !at_b.saw("recv " + std::to_string(peer_b) + " B again") ||
            !at_a.saw("recv " + std::to_string(peer_a) + " A again")))
        pump();
    CHECK(rb.log.saw("recv 0 from b"));
    CHECK_FALSE(rb.log.saw("recv 0 from a"));
    CHECK_FALSE(rb.log.saw("disconnect 0"));
    CHECK(at_b.saw("recv " + std::to_string(peer_b) + " B again"));
    CHECK(at_a.saw("recv " + std::to_string(peer_a) + " A again"));
    CHECK_FALSE(at_a.mentions(peer_b));
    CHECK_FALSE(at_b.mentions(peer_a));
    CHECK(router.first_packets.size() == 3);
    CHECK(router.closed.empty());
}
