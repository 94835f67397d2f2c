// A seeded 4-player match on the simulated network (the test game of tests/support), run for a
// fixed span of virtual time, for instruction counts of the session ticks under callgrind
// (bench/callgrind_ticks.sh). Instruction counts are stable on a shared, noisy machine, so the
// figure in docs/benchmarks.md compares builds, not seconds.
//   retcon_tick_probe [virtual ms] [telemetry frames] [trace records]
// The second argument sets every session's telemetry ring (0: off; absent: the sessions'
// default), for the cost of telemetry on the tick (docs/benchmarks.md, "Telemetry on the tick");
// the third every session's trace ring (0 or absent: off), for the cost of tracing
// (docs/benchmarks.md, "Tracing on the tick").
#include <common/sim_match.hpp>

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
    using namespace retcon;
    using namespace retcon::test;
    const std::uint64_t ms = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000;
    const link_conditions wan{.latency_ms = 40, .jitter_ms = 10, .loss = 0.02};
    client_options copt;
    sim_match m{7, 4};
    if (argc > 2) {
        const auto frames = static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10));
        copt.telemetry.frames = frames;
        server_options sopt;
        sopt.telemetry.frames = frames;
        if (argc > 3) {
            const auto records = static_cast<std::uint32_t>(std::strtoul(argv[3], nullptr, 10));
            copt.trace.records = records;
            sopt.trace.records = records;
        }
        m.use_server_options(std::move(sopt));
    }
    for (int i = 0; i < 4; ++i) m.add_client(wan, wan, copt);
    m.run(ms);
    std::size_t mismatched = 0;
    for (const auto &c : m.clients) mismatched += m.compare(*c).mismatched;
    const trace_recorder *trace = m.clients[0]->session->trace();
    std::printf("server frames %u, client 0 frames %u, rollbacks %llu, mismatches %zu, telemetry frames %zu, trace "
                "records %zu\n",
                m.server->frame(), m.clients[0]->session->current_frame(),
                static_cast<unsigned long long>(m.clients[0]->session->stats().rollbacks), mismatched,
                m.clients[0]->session->telemetry_capacity(), trace ? trace->size() : std::size_t{0});
    return mismatched == 0 ? 0 : 1;
}
