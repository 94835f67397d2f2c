#include <catch2/catch.hpp>

#include <common/sim_match.hpp>
#include <common/sim_match_allocations.hpp>

using namespace retcon;
using namespace retcon::test;

TEST_CASE("steady-state ticks and rollbacks allocate nothing (in-process transport)", "[net][allocations]") {
    sim_match m{21, 2};
    const link_conditions link{40, 10, 0.05, 0.0, 0.02};
    m.add_client(link, link);
    m.add_client(link, link);
    const allocation_window window = measure_warm_allocations(m, [&m] { m.step(); });
    INFO("rollbacks during the measured window: " << window.rollbacks);
    CHECK(window.rollbacks > 0);
    CHECK(window.allocations == 0);
}

TEST_CASE("keeping and reading telemetry allocates nothing in a warm match", "[net][allocations][telemetry]") {
    // A ring far shorter than the measured window, so it turns over while counted; the default
    // clock (steady_clock) is read.
    const telemetry_options telemetry{.frames = 60};
    sim_match m{22, 2};
    m.use_server_options({.telemetry = telemetry});
    const link_conditions link{40, 10, 0.05, 0.0, 0.02};
    m.add_client(link, link, {.telemetry = telemetry});
    m.add_client(link, link, {.telemetry = telemetry});
    std::vector<frame_telemetry> frames(60);
    std::vector<server_frame_telemetry> ticks(60);
    std::vector<server_client_telemetry> slot(60);
    std::size_t read = 0;
    const allocation_window window = measure_warm_allocations(m, [&] {
        m.step();
        for (const auto &c : m.clients) read += c->session->telemetry(frames);
        read += m.server->telemetry(ticks);
        read += m.server->client_telemetry(0, slot);
    });
    INFO("rollbacks during the measured window: " << window.rollbacks);
    CHECK(window.rollbacks > 0);
    CHECK(window.allocations == 0);
    CHECK(read > 0);
    CHECK(m.clients[0]->session->telemetry(frames) == 60); // the ring is full and turning
}

TEST_CASE("keeping a trace allocates nothing in a warm match", "[net][allocations][trace]") {
    // Rings far shorter than the measured window, so records and texts turn over while counted;
    // the default clock (steady_clock) is read. Structured steps, so the stages' slices are kept.
    const trace_options trace{.records = 512};
    sim_match m{23, 2, game_config(2), {.server_step = structured_game_step()}};
    m.use_server_options({.trace = trace});
    const link_conditions link{40, 10, 0.05, 0.0, 0.02};
    m.add_client(link, link, {.trace = trace}, structured_game_step());
    m.add_client(link, link, {.trace = trace}, structured_game_step());
    const allocation_window window = measure_warm_allocations(m, [&m] { m.step(); });
    INFO("rollbacks during the measured window: " << window.rollbacks);
    CHECK(window.rollbacks > 0);
    CHECK(window.allocations == 0);
    CHECK(m.clients[0]->session->trace()->overwritten() > 0);
    CHECK(m.server->trace()->overwritten() > 0);
}
