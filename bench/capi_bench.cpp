// The C API's query iterator against the C++ view over the same data (docs/benchmarks.md,
// "C API"): p += v over position/velocity, in an aligned layout (both pools filled in the same
// order: the iterator hands out pool memory directly) and a churned one (velocity added in a
// shuffled order: the iterator hands out per-column rows). The ratio C / C++ is the cost of
// the C boundary and the chunk shape; both run in this one process on the same machine.
//
// Sessions (docs/benchmarks.md, "C API", "Sessions: poll mode against the C++ session"): the
// seeded match of capi_sessions.hpp — a server and two clients, the same trivial step, world and
// inputs — driven as C++ tick(), C++ tick_requests(), C callback mode and C poll mode. Each
// iteration plays one whole match and times only one side's calls (both clients', or the
// server's) after the warm-up; its time is that side's time per frame it ran.
#include "capi_sessions.hpp"

#include <retcon.h>

#include <retcon/ecs.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

namespace {

struct pos {
    float x, y;
};
RETCON_COMPONENT(pos, x, y);
struct vel {
    float x, y;
};
RETCON_COMPONENT(vel, x, y);

/// The order velocity is added in: identity (aligned) or shuffled (churned).
std::vector<std::size_t> order(std::size_t n, bool churned) {
    std::vector<std::size_t> o(n);
    std::iota(o.begin(), o.end(), std::size_t{0});
    if (churned) std::shuffle(o.begin(), o.end(), std::mt19937{2026});
    return o;
}

void must(rc_status s) {
    if (s != RC_OK) std::abort();
}

void cpp_view(benchmark::State &state, bool churned) {
    const auto n = static_cast<std::size_t>(state.range(0));
    retcon::schema s;
    s.component<pos>().component<vel>();
    retcon::world w{s};
    std::vector<retcon::entity> es;
    for (std::size_t i = 0; i < n; ++i) {
        es.push_back(w.create());
        w.emplace<pos>(es.back(), static_cast<float>(i), 0.f);
    }
    for (auto i : order(n, churned)) w.emplace<vel>(es[i], 1.f, 0.5f);
    for (auto _ : state) {
        w.view<pos, const vel>().each([](pos &p, const vel &v) {
            p.x += v.x;
            p.y += v.y;
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<benchmark::IterationCount>(n));
}

void c_query(benchmark::State &state, bool churned) {
    const auto n = static_cast<std::size_t>(state.range(0));
    rc_schema *schema = nullptr;
    must(rc_schema_create(&schema));
    const rc_field fields[] = {RC_FIELD(pos, x, RC_F32), RC_FIELD(pos, y, RC_F32)};
    const rc_type_desc pos_desc{sizeof(rc_type_desc), "pos", sizeof(pos), fields, 2};
    const rc_type_desc vel_desc{sizeof(rc_type_desc), "vel", sizeof(vel), fields, 2};
    std::uint32_t p_id = 0, v_id = 0;
    must(rc_schema_component(schema, &pos_desc, &p_id));
    must(rc_schema_component(schema, &vel_desc, &v_id));
    rc_world *w = nullptr;
    must(rc_world_create(schema, &w));
    std::vector<rc_entity> es(n);
    for (std::size_t i = 0; i < n; ++i) {
        must(rc_entity_create(w, &es[i]));
        const pos p{static_cast<float>(i), 0.f};
        must(rc_component_add(w, es[i], p_id, &p, sizeof p));
    }
    for (auto i : order(n, churned)) {
        const vel v{1.f, 0.5f};
        must(rc_component_add(w, es[i], v_id, &v, sizeof v));
    }
    const std::uint32_t include[] = {p_id, v_id};
    const rc_query_desc qd{sizeof(rc_query_desc), include, 2, nullptr, 0};
    rc_query *q = nullptr;
    must(rc_query_create(w, &qd, &q));
    for (auto _ : state) {
        rc_chunk c;
        int more = 0;
        while (rc_query_next(q, &c, &more) == RC_OK && more) {
            auto *ps = static_cast<pos *>(c.columns[0]);
            const auto *vs = static_cast<const vel *>(c.columns[1]);
            if (!c.rows) {
                for (std::uint32_t i = 0; i < c.count; ++i) {
                    ps[i].x += vs[i].x;
                    ps[i].y += vs[i].y;
                }
            } else {
                for (std::uint32_t i = 0; i < c.count; ++i) {
                    pos &p = ps[c.rows[0][i]];
                    const vel &v = vs[c.rows[1][i]];
                    p.x += v.x;
                    p.y += v.y;
                }
            }
        }
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<benchmark::IterationCount>(n));
    rc_query_destroy(q);
    rc_world_destroy(w);
    rc_schema_destroy(schema);
}

// ---------------------------------------------------------------- sessions

using clock_type = std::chrono::steady_clock;

/// The side whose calls are timed.
enum class side : std::uint8_t { client, server };

/// Seconds one timed region costs when it contains nothing (two clock reads), measured here.
double empty_region_seconds() {
    constexpr int n = 100'000;
    double total = 0;
    for (int i = 0; i < n; ++i) {
        const auto t0 = clock_type::now();
        total += std::chrono::duration<double>(clock_type::now() - t0).count();
    }
    return total / n;
}

/// Virtual time measured after the warm-up.
constexpr std::uint64_t measured_ms = 10'000;

void session_frame(benchmark::State &state, bench::sessions::mode m, side timed) {
    using namespace bench::sessions;
    std::uint64_t frames = 0, updates = 0, rollbacks = 0, resimulated = 0;
    for (auto _ : state) {
        const auto game = make_match(m);
        std::uint64_t now = 1;
        for (; now <= warmup_ms; now += update_ms) {
            game->server_update(now);
            game->clients_update(now);
        }
        const summary a = game->report();
        double seconds = 0;
        updates = 0;
        for (; now <= warmup_ms + measured_ms; now += update_ms, ++updates) {
            if (timed == side::server) {
                const auto t0 = clock_type::now();
                game->server_update(now);
                seconds += std::chrono::duration<double>(clock_type::now() - t0).count();
                game->clients_update(now);
            } else {
                game->server_update(now);
                const auto t0 = clock_type::now();
                game->clients_update(now);
                seconds += std::chrono::duration<double>(clock_type::now() - t0).count();
            }
        }
        const summary b = game->report();
        rollbacks = resimulated = 0;
        for (std::size_t i = 0; i < players; ++i) {
            rollbacks += b.rollbacks[i] - a.rollbacks[i];
            resimulated += b.resimulated[i] - a.resimulated[i];
        }
        if (!b.running || b.desyncs != 0 || rollbacks == 0) {
            state.SkipWithError("the match did not play as expected (a client not running, a desync, no rollback)");
            return;
        }
        frames = timed == side::server
                     ? b.server_frame - a.server_frame
                     : (b.client_frame[0] - a.client_frame[0]) + (b.client_frame[1] - a.client_frame[1]);
        state.SetIterationTime(seconds / static_cast<double>(frames));
    }
    const auto per_frame = [&](std::uint64_t n) { return static_cast<double>(n) / static_cast<double>(frames); };
    state.counters["frames"] = static_cast<double>(frames);
    // Each session's updates per frame it ran (one timed region covers both clients' updates).
    state.counters["updates_per_frame"] = per_frame(timed == side::client ? updates * players : updates);
    if (timed == side::client) {
        state.counters["rollbacks_per_frame"] = per_frame(rollbacks);
        state.counters["resim_per_frame"] = per_frame(resimulated);
    }
    // Included in the time: the clock reads of the timed regions, the same in every mode.
    state.counters["clock_ns"] = empty_region_seconds() * per_frame(updates) * 1e9;
}

void cpp_tick(benchmark::State &state, side timed) { session_frame(state, bench::sessions::mode::cpp_tick, timed); }
void cpp_tick_requests(benchmark::State &state, side timed) {
    session_frame(state, bench::sessions::mode::cpp_tick_requests, timed);
}
void c_callback(benchmark::State &state, side timed) { session_frame(state, bench::sessions::mode::c_callback, timed); }
void c_poll(benchmark::State &state, side timed) { session_frame(state, bench::sessions::mode::c_poll, timed); }

/// Each iteration is a whole match (a few ms of work); its manual time is the time per frame.
/// Repetitions report min and max next to the median: the spread on a shared machine.
void session_case(benchmark::internal::Benchmark *b) {
    b->UseManualTime()
        ->Iterations(50)
        ->Unit(benchmark::kNanosecond)
        ->ComputeStatistics("min", [](const std::vector<double> &v) { return *std::min_element(v.begin(), v.end()); })
        ->ComputeStatistics("max", [](const std::vector<double> &v) { return *std::max_element(v.begin(), v.end()); });
}

} // namespace

BENCHMARK_CAPTURE(cpp_view, aligned, false)->Arg(10'000)->Arg(100'000);
BENCHMARK_CAPTURE(c_query, aligned, false)->Arg(10'000)->Arg(100'000);
BENCHMARK_CAPTURE(cpp_view, churned, true)->Arg(10'000)->Arg(100'000);
BENCHMARK_CAPTURE(c_query, churned, true)->Arg(10'000)->Arg(100'000);
BENCHMARK_CAPTURE(cpp_tick, client_frame, side::client)->Apply(session_case);
BENCHMARK_CAPTURE(cpp_tick_requests, client_frame, side::client)->Apply(session_case);
BENCHMARK_CAPTURE(c_callback, client_frame, side::client)->Apply(session_case);
BENCHMARK_CAPTURE(c_poll, client_frame, side::client)->Apply(session_case);
BENCHMARK_CAPTURE(cpp_tick, server_frame, side::server)->Apply(session_case);
BENCHMARK_CAPTURE(cpp_tick_requests, server_frame, side::server)->Apply(session_case);
BENCHMARK_CAPTURE(c_callback, server_frame, side::server)->Apply(session_case);
BENCHMARK_CAPTURE(c_poll, server_frame, side::server)->Apply(session_case);
BENCHMARK_MAIN();
