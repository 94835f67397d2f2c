#ifndef RETCON_BENCH_COMMON_HPP
#define RETCON_BENCH_COMMON_HPP

// Conventions shared by every retcon benchmark program (docs/benchmarks.md):
//  - names read <workload>/<implementation>[/<param>:<value>...]/<N>, so a report script can
//    pair each retcon figure with the baseline measured in the same run;
//  - repetitions are interleaved (--benchmark_enable_random_interleaving=true) and only the
//    aggregates are reported, with min and max next to the median (the spread);
//  - freed memory stays in the process (keep_freed_memory), so no benchmark measures the
//    kernel's first-touch page faults instead of the code under test.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#if defined(__GLIBC__)
#    include <malloc.h>
#endif

namespace bench {

#if defined(RETCON_BENCH_PAD)
/// @brief 40 bytes of code ahead of the program's own (RETCON_BENCH_PAD, bench/CMakeLists.txt):
/// a second build whose functions sit elsewhere, to check that no ratio moves with placement.
[[gnu::used, gnu::noinline]] static int placement_pad(int x) {
    __asm__ volatile(".skip 40, 0x90");
    return x + 1;
}
#endif

/// @brief Items (entities) per iteration, as a rate and as the "entities" counter the report
/// scripts divide by.
inline void set_items(benchmark::State &state, std::int64_t per_iteration) {
    state.SetItemsProcessed(state.iterations() * per_iteration);
    state.counters["entities"] = static_cast<double>(per_iteration);
}

/// @brief The benchmark's first argument, as an entity count.
inline std::uint32_t n_of(const benchmark::State &state) { return static_cast<std::uint32_t>(state.range(0)); }

/// @brief Reports only the aggregates of the repetitions, adding min and max to the median,
/// mean, stddev and cv Google Benchmark computes.
inline benchmark::internal::Benchmark *with_spread(benchmark::internal::Benchmark *b, int repetitions) {
    return b->Repetitions(repetitions)
        ->ReportAggregatesOnly(true)
        ->ComputeStatistics("min", [](const std::vector<double> &v) { return *std::min_element(v.begin(), v.end()); })
        ->ComputeStatistics("max", [](const std::vector<double> &v) { return *std::max_element(v.begin(), v.end()); });
}

/// @brief Keeps freed memory in the process: otherwise every fresh world (and every baseline)
/// pays the kernel's first-touch page faults, which on the reference VM cost more than the
/// work being measured. Same setting for retcon and the baselines.
inline void keep_freed_memory() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
}

} // namespace bench

#endif
