#include <catch2/catch.hpp>

#include <retcon/net/sim_network.hpp>

#include <map>
#include <vector>

using namespace retcon;

namespace {
struct recorder final : transport_handler {
    std::vector<std::pair<wire::channel, std::vector<std::byte>>> got;
    std::vector<std::uint64_t> at;
    std::uint64_t now = 0;
    int connects = 0, disconnects = 0;
    void on_connect(peer_id) override { ++connects; }
    void on_disconnect(peer_id) override { ++disconnects; }
    void on_receive(peer_id, wire::channel ch, std::span<const std::byte> d) override {
        got.emplace_back(ch, std::vector<std::byte>(d.begin(), d.end()));
        at.push_back(now);
    }
};

std::vector<std::byte> packet(int i) { return {static_cast<std::byte>(i), static_cast<std::byte>(i >> 8)}; }
int id(const std::vector<std::byte> &p) { return static_cast<int>(p[0]) | (static_cast<int>(p[1]) << 8); }

void run(sim_network &, transport &server, transport &client, recorder &rs, recorder &rc, std::uint64_t from,
         std::uint64_t to) {
    for (std::uint64_t t = from; t < to; ++t) {
        rs.now = rc.now = t;
        client.poll(t, rc);
        server.poll(t, rs);
    }
}
} // namespace

TEST_CASE("simulated links delay, lose and reorder unreliable packets, seeded", "[net][sim]") {
    auto trial = [](std::uint64_t seed) {
        sim_network net{seed};
        auto &server = net.server();
        auto &client = net.connect({50, 20, 0.2, 0.1, 0.1}, {});
        recorder rs, rc;
        run(net, server, client, rs, rc, 0, 5);
        for (int i = 0; i < 1000; ++i) {
            client.send(0, wire::channel::inputs, packet(i));
            run(net, server, client, rs, rc, 5 + static_cast<std::uint64_t>(i), 6 + static_cast<std::uint64_t>(i));
        }
        run(net, server, client, rs, rc, 1005, 1200);
        std::vector<int> ids;
        for (auto &[ch, p] : rs.got) ids.push_back(id(p));
        return std::make_pair(ids, rs.at);
    };
    const auto [ids, at] = trial(99);
    CHECK(ids.size() > 700); // ~20% lost, ~10% duplicated
    CHECK(ids.size() < 1000);
    bool reordered = false;
    for (std::size_t i = 1; i < ids.size(); ++i) reordered = reordered || ids[i] < ids[i - 1];
    CHECK(reordered);
    CHECK(trial(99) == std::make_pair(ids, at)); // same seed: same deliveries at the same times
    CHECK(trial(100).first != ids);
}

TEST_CASE("reliable channels are never lost or reordered, even through a blackout", "[net][sim]") {
    sim_network net{5};
    auto &server = net.server();
    auto &client = net.connect({30, 25, 0.5, 0.5, 0.5}, {});
    recorder rs, rc;
    run(net, server, client, rs, rc, 0, 5);
    for (int i = 0; i < 200; ++i) {
        if (i == 50) net.set_blackout(0, true);
        if (i == 120) net.set_blackout(0, false);
        client.send(0, wire::channel::control, packet(i));
        run(net, server, client, rs, rc, 5 + static_cast<std::uint64_t>(i), 6 + static_cast<std::uint64_t>(i));
    }
    run(net, server, client, rs, rc, 205, 400);
    REQUIRE(rs.got.size() == 200);
    for (int i = 0; i < 200; ++i) CHECK(id(rs.got[static_cast<std::size_t>(i)].second) == i);
    CHECK(net.bytes_up(0) == 400);
}

TEST_CASE("disconnects reach the other side", "[net][sim]") {
    sim_network net{6};
    auto &server = net.server();
    auto &client = net.connect({}, {});
    recorder rs, rc;
    run(net, server, client, rs, rc, 0, 5);
    CHECK(rs.connects == 1);
    CHECK(rc.connects == 1);
    server.disconnect(0);
    run(net, server, client, rs, rc, 5, 10);
    CHECK(rc.disconnects == 1);
    client.send(0, wire::channel::control, packet(1));
    run(net, server, client, rs, rc, 10, 20);
    CHECK(rs.got.empty());
}
