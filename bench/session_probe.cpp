// The seeded match of bench/capi_sessions.hpp played once in one mode, for instruction counts
// under callgrind (bench/callgrind_ticks.sh --modes; docs/benchmarks.md, "C API", "Sessions: poll
// mode against the C++ session"). The clients' and the server's calls of each update run inside
// probe_clients and probe_server, which callgrind's --toggle-collect counts alone; the warm-up
// (connecting, loading: warmup_ms) calls the match directly and is not counted.
//   retcon_session_probe cpp_tick|cpp_tick_requests|c_callback|c_poll [measured virtual ms] [ms per update]
// Prints the frames each side ran while counted and the server's final world hash: every mode
// must play the same match (exit 1 otherwise: no rollback, a desync or a client not running).
#include "capi_sessions.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

/// One update of both clients: what callgrind counts for the client side.
extern "C" [[gnu::noinline]] void probe_clients(bench::sessions::match &m, std::uint64_t now_ms) {
    m.clients_update(now_ms);
}

/// One update of the server.
extern "C" [[gnu::noinline]] void probe_server(bench::sessions::match &m, std::uint64_t now_ms) {
    m.server_update(now_ms);
}

int main(int argc, char **argv) {
    using namespace bench::sessions;
    const std::string_view which = argc > 1 ? argv[1] : "c_poll";
    const std::uint64_t ms = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10'000;
    const std::uint64_t step_ms = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : update_ms;
    mode m = mode::c_poll;
    bool known = false;
    for (const mode candidate : {mode::cpp_tick, mode::cpp_tick_requests, mode::c_callback, mode::c_poll})
        if (name(candidate) == which) {
            m = candidate;
            known = true;
        }
    if (!known || step_ms == 0) {
        std::fprintf(stderr, "usage: retcon_session_probe cpp_tick|cpp_tick_requests|c_callback|c_poll [ms] "
                             "[ms per update]\n");
        return 2;
    }
    const auto game = make_match(m);
    std::uint64_t now = 1;
    for (; now <= warmup_ms; now += step_ms) {
        game->server_update(now);
        game->clients_update(now);
    }
    const summary a = game->report();
    std::uint64_t updates = 0;
    for (; now <= warmup_ms + ms; now += step_ms, ++updates) {
        probe_server(*game, now);
        probe_clients(*game, now);
    }
    const summary b = game->report();
    const auto delta = [&](std::size_t i) { return b.client_frame[i] - a.client_frame[i]; };
    const auto rolled = [&](std::size_t i) { return b.rollbacks[i] - a.rollbacks[i]; };
    const auto resimulated = [&](std::size_t i) { return b.resimulated[i] - a.resimulated[i]; };
    using ull = unsigned long long;
    std::printf("%s: counted %llu updates: server frames %llu, client frames %llu (%llu + %llu), rollbacks %llu + "
                "%llu, re-simulated frames %llu + %llu, desyncs %llu, server hash %016llx\n",
                std::string(which).c_str(), static_cast<ull>(updates),
                static_cast<ull>(b.server_frame - a.server_frame), static_cast<ull>(delta(0) + delta(1)),
                static_cast<ull>(delta(0)), static_cast<ull>(delta(1)), static_cast<ull>(rolled(0)),
                static_cast<ull>(rolled(1)), static_cast<ull>(resimulated(0)), static_cast<ull>(resimulated(1)),
                static_cast<ull>(b.desyncs), static_cast<ull>(b.server_hash));
    return b.running && b.desyncs == 0 && rolled(0) + rolled(1) > 0 ? 0 : 1;
}
