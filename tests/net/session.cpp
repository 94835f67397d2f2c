#include <catch2/catch.hpp>

#include <common/sim_match.hpp>

using namespace retcon;
using namespace retcon::test;

TEST_CASE("clients on a clean link stay in sync with the server", "[net][session]") {
    sim_match m{1, 2};
    auto &a = m.add_client({20, 0, 0.0}, {20, 0, 0.0});
    auto &b = m.add_client({20, 0, 0.0}, {20, 0, 0.0});
    m.run(5000);
    for (auto *c : {&a, &b}) {
        REQUIRE(c->session->state() == client_state::running);
        const auto cmp = m.compare(*c);
        INFO("frames compared " << cmp.compared);
        CHECK(cmp.compared > 200);
        CHECK(cmp.mismatched == 0);
        CHECK(sim_match::count(c->events, session_event_kind::synchronized) == 1);
    }
    CHECK(sim_match::count(m.server_events, session_event_kind::player_joined) == 2);
    CHECK(m.server->players() == 2);
}

TEST_CASE("4 clients at 150 ms RTT, 30 ms jitter, 10% loss stay in sync", "[net][session]") {
    const auto seed = GENERATE(7u, 8u);
    sim_match m{seed, 4};
    const link_conditions link{75, 15, 0.10, 0.01, 0.02};
    for (int i = 0; i < 4; ++i) m.add_client(link, link);
    m.run(2000); // connect and settle
    const auto replaced_before = m.server->totals().replaced_inputs;
    std::uint64_t stalls_before = 0;
    for (auto &c : m.clients) stalls_before += c->session->stats().stall_frames;
    m.run(60000); // 3,600 frames
    const auto frames = 3600.0 * 4;
    const auto replaced = static_cast<double>(m.server->totals().replaced_inputs - replaced_before);
    std::uint64_t stalls = 0, rollbacks = 0;
    for (auto &c : m.clients) {
        stalls += c->session->stats().stall_frames;
        rollbacks += c->session->stats().rollbacks;
        const auto cmp = m.compare(*c);
        INFO("client compared " << cmp.compared << " frames, rtt " << c->session->stats().rtt_ms << " ms, ahead "
                                << c->session->stats().frames_ahead << ", margin " << c->session->stats().margin_ms);
        CHECK(c->session->state() == client_state::running);
        CHECK(cmp.compared > 3000);
        CHECK(cmp.mismatched == 0);
        CHECK(sim_match::count(c->events, session_event_kind::desync_detected) == 0);
    }
    WARN("replaced " << replaced / frames * 100.0 << "% of inputs, stalls " << stalls - stalls_before << ", rollbacks "
                     << rollbacks);
    CHECK(rollbacks > 0);
    CHECK(replaced / frames <= 0.02);
    CHECK(stalls - stalls_before <= 10);
}
