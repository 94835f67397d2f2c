#include <catch2/catch.hpp>

#include <common/test_game.hpp>

#include <chrono>
#include <map>
#include <thread>

using namespace retcon;
using namespace retcon::test;

namespace {
std::uint64_t wall_ms() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count());
}
std::uint16_t test_port() { return static_cast<std::uint16_t>(20000 + (::getpid() % 20000)); }
} // namespace

TEST_CASE("server and clients over real ENet on loopback stay in sync", "[net][enet]") {
    const auto port = test_port();
    auto server_t = make_enet_server(port, {}, "127.0.0.1");
    REQUIRE(server_t.ok());
    const auto cfg = game_config(2);
    world sw{game_schema()};
    init_game(sw);
    server_session server{cfg, sw, step_game, **server_t};
    std::map<std::uint32_t, std::uint64_t> server_hashes;
    server.on_confirmed([&](const frame_inputs &in, const world &, std::uint64_t h) { server_hashes[in.frame()] = h; });

    struct peer {
        world w{game_schema()};
        std::unique_ptr<transport> t;
        std::unique_ptr<client_session> s;
        std::map<std::uint32_t, std::uint64_t> hashes;
        bot b{0};
    };
    std::vector<std::unique_ptr<peer>> peers;
    for (int i = 0; i < 2; ++i) {
        auto p = std::make_unique<peer>();
        init_game(p->w);
        auto t = make_enet_client("127.0.0.1", port);
        REQUIRE(t.ok());
        p->t = std::move(*t);
        p->b.state = 77u + static_cast<std::uint64_t>(i);
        p->s = std::make_unique<client_session>(cfg, p->w, step_game, *p->t);
        auto *raw = p.get();
        p->s->on_confirmed_hash([raw](std::uint32_t f, std::uint64_t h) { raw->hashes[f] = h; });
        peers.push_back(std::move(p));
    }
    const auto start = wall_ms();
    while (wall_ms() - start < 3000) {
        const auto now = wall_ms();
        server.poll(now);
        while (server.should_tick(now)) server.tick();
        for (auto &p : peers) {
            p->s->poll(now);
            while (p->s->should_tick(now)) p->s->tick(p->b.next());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CHECK(server.players() == 2);
    for (auto &p : peers) {
        REQUIRE(p->s->state() == client_state::running);
        std::size_t compared = 0, mismatched = 0;
        for (const auto &[f, h] : p->hashes) {
            const auto it = server_hashes.find(f);
            if (it == server_hashes.end()) continue;
            ++compared;
            mismatched += it->second != h ? 1u : 0u;
        }
        INFO("compared " << compared << " frames over ENet");
        CHECK(compared > 60);
        CHECK(mismatched == 0);
        CHECK(p->s->stats().rtt_ms < 100);
    }
}

TEST_CASE("ENet transport reports a bad bind address and an unresolvable host", "[net][enet]") {
    auto bad = make_enet_server(test_port(), {}, "no.such.host.invalid");
    CHECK_FALSE(bad.ok());
    auto client = make_enet_client("no.such.host.invalid", 1);
    CHECK_FALSE(client.ok());
    CHECK_THAT(client.message(), Catch::Contains("resolve"));
}

TEST_CASE("a client whose server does not exist gives up after connect_timeout_ms", "[net][enet]") {
    // Nobody listens on this port. ENet alone retries for about 30 s and then reported only
    // "connection closed"; the session's connect timeout (virtual time: polls 10 ms apart, no
    // sleeping) ends it and names the address.
    const auto port = static_cast<std::uint16_t>(test_port() + 1);
    auto t = make_enet_client("127.0.0.1", port);
    REQUIRE(t.ok());
    CHECK((*t)->peer_address(0) == "127.0.0.1:" + std::to_string(port));
    world w{game_schema()};
    init_game(w);
    client_options opt;
    opt.connect_timeout_ms = 200;
    client_session c{game_config(2), w, step_game, **t, opt};
    std::vector<session_event> evs;
    int polls = 0;
    for (std::uint64_t now = 1000; polls < 1000 && c.state() == client_state::connecting; now += 10, ++polls) {
        c.poll(now);
        for (session_event e; c.next_event(e);) evs.push_back(e);
    }
    REQUIRE(c.state() == client_state::disconnected);
    CHECK(polls >= 20); // the timeout counts virtual time from the first poll
    REQUIRE(evs.size() == 1);
    CHECK(evs[0].kind == session_event_kind::disconnected);
    CHECK(evs[0].text == "could not connect to 127.0.0.1:" + std::to_string(port));
    for (int i = 0; i < 50; ++i) c.poll(10000u + static_cast<std::uint64_t>(i)); // the abandoned attempt stays quiet
    session_event late;
    CHECK_FALSE(c.next_event(late));
}
