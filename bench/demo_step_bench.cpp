// The demo's step as a game meets it (docs/benchmarks.md, "ECS", "The demo's step"): the default
// arena (24 asteroids, 3,000 dust particles spawned and despawned every frame), four seeded bots
// deciding from the world, 600 frames of warm-up. Each iteration is one frame: the bots decide
// (untimed), then `step_once` runs the demo's systems, timed on the wall clock around that call
// alone. `step_once` is also the callgrind target for instructions per step:
//   valgrind --tool=callgrind --toggle-collect='*step_once*'
//       build/bench/bench/retcon_demo_step_bench --benchmark_filter=demo_step_callgrind
// counts 1,000 steps (frames 600 to 1,599 of the seeded match): Ir per step = total / 1,000.
#include <retcon/ecs.hpp>
#include <retcon_demo/game.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cstddef>

#include "bench_common.hpp"

namespace {

using namespace retcon;
using namespace retcon::demo;

constexpr std::size_t players = 4;

struct match {
    world w{make_schema()};
    game g;
    std::array<bot, players> bots{bot{11}, bot{22}, bot{33}, bot{44}};
    frame_inputs_buffer in{players, sizeof(player_input)};
    frame_t frame = 0;

    match() { init_world(w); }
    void decide() {
        for (std::size_t s = 0; s < players; ++s) in.set(s, bots[s].decide(w, static_cast<int>(s)));
    }
};

[[gnu::noinline]] void step_once(match &m) { m.g.step(m.w, m.in.view(m.frame++)); }

void demo_step(benchmark::State &state) {
    match m;
    for (int i = 0; i < 600; ++i) { // warm-up, outside step_once so callgrind does not count it
        m.decide();
        m.g.step(m.w, m.in.view(m.frame++));
    }
    for (auto _ : state) {
        m.decide();
        const auto t0 = std::chrono::steady_clock::now();
        step_once(m);
        const auto t1 = std::chrono::steady_clock::now();
        state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    }
    state.counters["entities"] = static_cast<double>(m.w.alive());
}

} // namespace

int main(int argc, char **argv) {
    bench::keep_freed_memory();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    bench::with_spread(
        benchmark::RegisterBenchmark("demo_step/retcon", demo_step)->UseManualTime()->Unit(benchmark::kMicrosecond), 5);
    benchmark::RegisterBenchmark("demo_step_callgrind/retcon", demo_step)
        ->UseManualTime()
        ->Iterations(1000)
        ->Repetitions(1)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
