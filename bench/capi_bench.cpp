// The C API's query iterator against the C++ view over the same data (docs/benchmarks.md,
// "C API"): p += v over position/velocity, in an aligned layout (both pools filled in the same
// order: the iterator hands out pool memory directly) and a churned one (velocity added in a
// shuffled order: the iterator hands out per-column rows). The ratio C / C++ is the cost of
// the C boundary and the chunk shape; both run in this one process on the same machine.
#include <retcon.h>

#include <retcon/ecs.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
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

} // namespace

BENCHMARK_CAPTURE(cpp_view, aligned, false)->Arg(10'000)->Arg(100'000);
BENCHMARK_CAPTURE(c_query, aligned, false)->Arg(10'000)->Arg(100'000);
BENCHMARK_CAPTURE(cpp_view, churned, true)->Arg(10'000)->Arg(100'000);
BENCHMARK_CAPTURE(c_query, churned, true)->Arg(10'000)->Arg(100'000);
BENCHMARK_MAIN();
