#ifndef RETCON_BENCH_ECS_LAYOUTS_HPP
#define RETCON_BENCH_ECS_LAYOUTS_HPP

// Views over pools that are NOT in the same order (docs/benchmarks.md, "ECS", "Layouts"): the
// layouts a game reaches by adding components at different times, removing and re-adding them.
// Every layout is drawn from the tests' seeded generator (never "every k-th entity", which a
// run detector could exploit), so two runs build the same world:
//   subset50 / subset30  every entity has a Position; a random 50% / 30% also get a Velocity
//   shuffled             every entity has both; Velocity was added in a random order
//   churn                shuffled, and before each timed pass 0.5% of the Velocity holders,
//                        chosen at random, lose it and get it back (untimed)
//   twosided             a random 70% have a Position (in creation order), a random 60% a
//                        Velocity (added in a random order), independently
// Each retcon row is paired with `<layout>/plain`: the plain forward loop over as many elements
// as the view visits. Included by ecs_bench.cpp after its components, schemas and systems.
#include <retcon/ecs.hpp>

#include <benchmark/benchmark.h>

#include <common/rng.hpp>

#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace bench::layouts {

enum class layout { subset50, subset30, shuffled, churn, twosided };

inline const char *name_of(layout l) {
    switch (l) {
    case layout::subset50: return "view2_subset50";
    case layout::subset30: return "view2_subset30";
    case layout::shuffled: return "view2_shuffled";
    case layout::churn: return "view2_churn";
    case layout::twosided: return "view2_twosided";
    }
    return "?";
}

/// @brief A world in one of the layouts, the entities it holds and how many the view visits.
struct layout_world {
    std::unique_ptr<retcon::world> w;
    std::vector<retcon::entity> entities;
    std::uint32_t visits = 0;
};

/// @brief A random permutation of 0..n-1 (Fisher-Yates over the seeded generator).
inline std::vector<std::uint32_t> permutation(std::uint32_t n, retcon::test::rng &r) {
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    for (std::uint32_t i = n; i > 1; --i) std::swap(order[i - 1], order[r.below(i)]);
    return order;
}

inline layout_world build(layout l, std::uint32_t n, std::uint64_t seed = 7) {
    retcon::test::rng r{seed};
    layout_world out;
    out.w = std::make_unique<retcon::world>(schema_for<32>());
    retcon::world &w = *out.w;
    out.entities.reserve(n);
    const std::uint32_t has_position = l == layout::twosided ? 70u : 100u;
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto e = w.create();
        out.entities.push_back(e);
        if (r.chance(has_position)) w.emplace<Position>(e, fval(i), 0.f);
        if (l == layout::subset50 && r.chance(50)) w.emplace<Velocity>(e, 1.f, fval(i));
        if (l == layout::subset30 && r.chance(30)) w.emplace<Velocity>(e, 1.f, fval(i));
    }
    if (l == layout::shuffled || l == layout::churn || l == layout::twosided) {
        const std::uint32_t has_velocity = l == layout::twosided ? 60u : 100u;
        for (const std::uint32_t i : permutation(n, r))
            if (r.chance(has_velocity)) w.emplace<Velocity>(out.entities[i], 1.f, fval(i));
    }
    for (const auto e : out.entities) out.visits += w.all_of<Position, Velocity>(e) ? 1u : 0u;
    return out;
}

/// @brief The churn layout's untimed step: @p k random Velocity holders lose it and get it back.
inline void rechurn(layout_world &lw, retcon::test::rng &r, std::uint32_t k) {
    retcon::world &w = *lw.w;
    for (std::uint32_t i = 0; i < k; ++i) {
        const auto e = lw.entities[r.below(static_cast<std::uint32_t>(lw.entities.size()))];
        if (!w.all_of<Velocity>(e)) continue;
        const Velocity v = w.get<Velocity>(e);
        w.remove<Velocity>(e);
        w.emplace<Velocity>(e, v);
    }
}

/// @brief The timed pass: the movement system of view2 over a mutable world.
[[gnu::noinline]] inline std::uint32_t view2_pass(retcon::world &w) {
    std::uint32_t visited = 0;
    w.view<Position, const Velocity>().each([&visited](Position &p, const Velocity &v) {
        sys2(p, v);
        ++visited;
    });
    return visited;
}

inline void retcon_layout(benchmark::State &state, layout l) {
    auto lw = build(l, n_of(state));
    retcon::test::rng r{11};
    const std::uint32_t k = n_of(state) / 200u; // 0.5% for churn
    // Untimed passes first: a layout is measured as a game meets it frame after frame, not on
    // its first pass (view2_first measures that).
    for (int i = 0; i < 8; ++i)
        if (view2_pass(*lw.w) != lw.visits) state.SkipWithError("the view visited another count of entities");
    for (auto _ : state) {
        if (l == layout::churn) {
            state.PauseTiming();
            rechurn(lw, r, k);
            state.ResumeTiming();
        }
        benchmark::DoNotOptimize(view2_pass(*lw.w));
        benchmark::ClobberMemory();
    }
    set_items(state, lw.visits);
}

/// @brief The first pass over a freshly shuffled world (what a layout change costs once).
inline void retcon_first_pass(benchmark::State &state) {
    std::uint32_t visits = 0;
    for (auto _ : state) {
        state.PauseTiming();
        auto lw = build(layout::shuffled, n_of(state));
        visits = lw.visits;
        state.ResumeTiming();
        benchmark::DoNotOptimize(view2_pass(*lw.w));
        benchmark::ClobberMemory();
        state.PauseTiming();
        lw.w.reset();
        state.ResumeTiming();
    }
    set_items(state, visits);
}

/// @brief The plain forward loop over as many elements as the layout's view visits.
inline void plain_layout(benchmark::State &state, layout l) { plain_loop_over(state, build(l, n_of(state)).visits); }

template<class Add>
void register_layouts(Add add) {
    constexpr std::int64_t ns[] = {10'000, 100'000, 1'000'000};
    for (const layout l : {layout::subset50, layout::subset30, layout::shuffled, layout::churn, layout::twosided}) {
        const std::string base = name_of(l);
        for (const auto n : ns) {
            add(benchmark::RegisterBenchmark((base + "/retcon/types:32").c_str(),
                                             [l](benchmark::State &s) { retcon_layout(s, l); }),
                n);
            add(benchmark::RegisterBenchmark((base + "/plain").c_str(),
                                             [l](benchmark::State &s) { plain_layout(s, l); }),
                n);
        }
    }
    for (const auto n : ns) add(benchmark::RegisterBenchmark("view2_first/retcon/types:32", retcon_first_pass), n);
}

} // namespace bench::layouts

#endif
