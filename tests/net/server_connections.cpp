// server_connections (net/src/server_connections.hpp): a server's connections by peer and the
// totals that outlive them (docs/net.md, "Inside the sessions" and "Stats").
#include <catch2/catch.hpp>

#include <retcon/net/stats.hpp>

#include <vector>

#include "server_connections.hpp"

using namespace retcon;
using internal::server_connections;

TEST_CASE("server_connections: found by peer, spectators counted, totals kept after a connection leaves",
          "[net][parts]") {
    server_connections all;
    CHECK(all.empty());
    auto &player = all.connect(4, "10.0.0.4:1", 100);
    player.activate(0, 10, 0, 0);
    auto &watcher = all.connect(2, "10.0.0.2:1", 100);
    watcher.activate(-1, 10, 0, 0);
    (void)all.connect(9, "", 100); // mid-handshake: neither a player nor a spectator
    CHECK(all.spectators() == 1u);
    REQUIRE(all.find(4) == &player);
    CHECK(all.find(5) == nullptr);

    player.stats().replaced_inputs = 3;
    player.stats().desyncs = 1;
    player.stats().bytes_in_per_s = 100;
    watcher.stats().unverified_desyncs = 2;
    watcher.stats().bytes_in_per_s = 50;
    auto t = all.totals();
    CHECK(t.replaced_inputs == 3u);
    CHECK(t.desyncs == 1u);
    CHECK(t.unverified_desyncs == 2u);
    CHECK(t.bytes_in_per_s == 150);

    all.remove(4); // its counters stay in the totals, its rates go
    CHECK(all.find(4) == nullptr);
    t = all.totals();
    CHECK(t.replaced_inputs == 3u);
    CHECK(t.desyncs == 1u);
    CHECK(t.bytes_in_per_s == 50);
    all.remove(4); // gone already: nothing counted twice
    CHECK(all.totals().replaced_inputs == 3u);

    // In peer order, whatever the order of connecting.
    std::vector<peer_id> order;
    for (const auto &[peer, c] : all) order.push_back(peer);
    CHECK(order == std::vector<peer_id>{2, 9});
}

TEST_CASE("server_connections: a peer connected again keeps its connection and restarts its clocks", "[net][parts]") {
    server_connections all;
    auto &c = all.connect(1, "a:1", 0);
    c.activate(0, 0, 0, 0);
    auto &again = all.connect(1, "a:2", 500);
    CHECK(&again == &c);
    CHECK(again.active());
    CHECK(again.address() == "a:2");
}
