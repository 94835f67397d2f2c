// ECS benchmarks. Every retcon figure is quoted against a baseline measured in the
// same run (docs/benchmarks.md):
//   naive/    one std::unordered_map<uint32_t, T> per component (bench/naive_ecs.hpp)
//   minimal/  a minimal hand-written sparse set per component (bench/naive_ecs.hpp)
//   plain/    a loop over two std::vector<vec2> (position += velocity)
//   plain_reverse/  the same loop walking backwards
// Views over pools in different orders (random subsets, shuffled, churned) are in
// ecs_layouts.hpp, each paired with the plain loop over as many elements as it visits.
// retcon runs with 32, 128 and 512 declared component types (fillers declared before and after
// the used ones) to show that costs do not depend on the number of types. The benchmark names
// read <workload>/<implementation>[/types:<T>]/<N>. See docs/benchmarks.md for the command and
// bench/ecs_report.py for the ratio table.
#include <retcon/ecs.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench_common.hpp"
#include "naive_ecs.hpp"

namespace bench {

// ---------------------------------------------------------------- components

struct Position {
    float x, y;
};
RETCON_COMPONENT(Position, x, y);

struct Velocity {
    float dx, dy;
};
RETCON_COMPONENT(Velocity, dx, dy);

struct Accel {
    float ax, ay;
};
RETCON_COMPONENT(Accel, ax, ay);

struct Flag {};
RETCON_TAG(Flag);

struct Transform {
    float x, y, angle, scale;
};
RETCON_COMPONENT(Transform, x, y, angle, scale);

struct Shader {
    std::uint32_t program, uses;
};
RETCON_COMPONENT(Shader, program, uses);

struct Physics {
    float vx, vy, mass, drag;
};
RETCON_COMPONENT(Physics, vx, vy, mass, drag);

constexpr int used_types = 7; // the seven types above

// Filler component types, registered by hand with a compile-time unique name "filler_<N>".
template<int N>
struct filler {
    std::uint32_t v;
};

template<int N>
struct filler_name_t {
    char text[16]{};
    std::size_t length = 0;
    consteval filler_name_t() {
        for (const char c : std::string_view{"filler_"}) text[length++] = c;
        char digits[8]{};
        std::size_t n = 0;
        int v = N;
        do {
            digits[n++] = static_cast<char>('0' + v % 10);
            v /= 10;
        } while (v != 0);
        while (n != 0) text[length++] = digits[--n];
    }
    [[nodiscard]] constexpr std::string_view view() const { return {text, length}; }
};
template<int N>
inline constexpr filler_name_t<N> filler_name{};

template<int N>
consteval auto retcon_describe(retcon::internal::type_tag<filler<N>>) {
    return retcon::internal::describe<filler<N>>(filler_name<N>.view(),
                                                 retcon::internal::make_field<std::uint32_t>("v", 0));
}
static_assert(filler_name<0>.view() == "filler_0" && filler_name<123>.view() == "filler_123");
static_assert(retcon::internal::fields_tile(retcon_describe(retcon::internal::type_tag<filler<7>>{})));

template<int First, int... I>
void declare_fillers(retcon::schema &s, std::integer_sequence<int, I...>) {
    (s.component<filler<First + I>>(), ...);
}

/// Types declared component types in all: half the fillers, the used types, the other half.
template<int Types>
retcon::schema make_schema(bool with_group) {
    static_assert(Types >= used_types);
    constexpr int before = (Types - used_types) / 2;
    constexpr int after = Types - used_types - before;
    retcon::schema s;
    declare_fillers<0>(s, std::make_integer_sequence<int, before>{});
    s.component<Position>()
        .component<Velocity>()
        .component<Accel>()
        .component<Flag>()
        .component<Transform>()
        .component<Shader>()
        .component<Physics>();
    declare_fillers<before>(s, std::make_integer_sequence<int, after>{});
    if (with_group) s.group<Position, Velocity>();
    return s;
}

template<int Types, bool Group = false>
const retcon::schema &schema_for() {
    static const retcon::schema s = make_schema<Types>(Group);
    return s;
}

// ---------------------------------------------------------------- helpers

using naive_ecs = naive::registry<Position, Velocity, Accel, Flag, Transform, Shader, Physics>;
using minimal_ecs = minimal::registry<Position, Velocity, Accel, Flag, Transform, Shader, Physics>;

struct vec2 {
    float x, y;
};

float fval(std::uint32_t i) { return static_cast<float>(i % 1024u) * 0.001f; }

// Entities with Position + Velocity + Accel (what the view / group / tag workloads start from).
std::vector<retcon::entity> populate(retcon::world &w, std::uint32_t n) {
    std::vector<retcon::entity> out;
    out.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto e = w.create();
        w.emplace<Position>(e, fval(i), 0.f);
        w.emplace<Velocity>(e, 1.f, fval(i));
        w.emplace<Accel>(e, 0.001f, 0.002f);
        out.push_back(e);
    }
    return out;
}

template<class R>
std::vector<std::uint32_t> populate_baseline(R &r, std::uint32_t n) {
    std::vector<std::uint32_t> out;
    out.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto e = r.create();
        r.template emplace<Position>(e, fval(i), 0.f);
        r.template emplace<Velocity>(e, 1.f, fval(i));
        r.template emplace<Accel>(e, 0.001f, 0.002f);
        out.push_back(e);
    }
    return out;
}

// The systems, shared by every implementation.
inline void sys1(Position &p) {
    p.x += 1.f;
    p.y += 1.f;
}
inline void sys2(Position &p, const Velocity &v) {
    p.x += v.dx;
    p.y += v.dy;
}
inline void sys3(Position &p, Velocity &v, const Accel &a) {
    v.dx += a.ax;
    v.dy += a.ay;
    p.x += v.dx;
    p.y += v.dy;
}
inline void mixed_sys(Shader &s, Physics &ph) {
    s.uses += 1u;
    ph.vx += ph.mass * 0.5f;
    ph.vy -= ph.drag;
}

// ---------------------------------------------------------------- create / destroy

template<int Types>
void retcon_create(benchmark::State &state) {
    const auto n = n_of(state);
    for (auto _ : state) {
        state.PauseTiming();
        std::unique_ptr<retcon::world> w = std::make_unique<retcon::world>(schema_for<Types>());
        state.ResumeTiming();
        for (std::uint32_t i = 0; i < n; ++i) {
            const auto e = w->create();
            w->emplace<Position>(e, fval(i), 0.f);
            w->emplace<Velocity>(e, 1.f, 0.f);
        }
        benchmark::DoNotOptimize(w.get());
        benchmark::ClobberMemory();
        state.PauseTiming();
        w.reset();
        state.ResumeTiming();
    }
    set_items(state, n);
}

template<class R>
void baseline_create(benchmark::State &state) {
    const auto n = n_of(state);
    for (auto _ : state) {
        state.PauseTiming();
        auto r = std::make_unique<R>();
        state.ResumeTiming();
        for (std::uint32_t i = 0; i < n; ++i) {
            const auto e = r->create();
            r->template emplace<Position>(e, fval(i), 0.f);
            r->template emplace<Velocity>(e, 1.f, 0.f);
        }
        benchmark::DoNotOptimize(r.get());
        benchmark::ClobberMemory();
        state.PauseTiming();
        r.reset();
        state.ResumeTiming();
    }
    set_items(state, n);
}

template<int Types>
void retcon_destroy(benchmark::State &state) {
    const auto n = n_of(state);
    std::vector<retcon::entity> handles(n);
    for (auto _ : state) {
        state.PauseTiming();
        std::unique_ptr<retcon::world> w = std::make_unique<retcon::world>(schema_for<Types>());
        for (std::uint32_t i = 0; i < n; ++i) {
            handles[i] = w->create();
            w->emplace<Position>(handles[i], fval(i), 0.f);
            w->emplace<Velocity>(handles[i], 1.f, 0.f);
        }
        state.ResumeTiming();
        for (const auto e : handles) w->destroy(e);
        benchmark::DoNotOptimize(w.get());
        benchmark::ClobberMemory();
        state.PauseTiming();
        w.reset();
        state.ResumeTiming();
    }
    set_items(state, n);
}

template<class R>
void baseline_destroy(benchmark::State &state) {
    const auto n = n_of(state);
    std::vector<std::uint32_t> handles(n);
    for (auto _ : state) {
        state.PauseTiming();
        auto r = std::make_unique<R>();
        for (std::uint32_t i = 0; i < n; ++i) {
            handles[i] = r->create();
            r->template emplace<Position>(handles[i], fval(i), 0.f);
            r->template emplace<Velocity>(handles[i], 1.f, 0.f);
        }
        state.ResumeTiming();
        for (const auto e : handles) r->destroy(e);
        benchmark::DoNotOptimize(r.get());
        benchmark::ClobberMemory();
        state.PauseTiming();
        r.reset();
        state.ResumeTiming();
    }
    set_items(state, n);
}

// ---------------------------------------------------------------- iteration

template<int Types>
void retcon_view1(benchmark::State &state) {
    const auto n = n_of(state);
    retcon::world w{schema_for<Types>()};
    populate(w, n);
    for (auto _ : state) {
        w.view<Position>().each([](Position &p) { sys1(p); });
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

template<int Types>
void retcon_view2(benchmark::State &state) {
    const auto n = n_of(state);
    retcon::world w{schema_for<Types>()};
    populate(w, n);
    for (auto _ : state) {
        w.view<Position, const Velocity>().each([](Position &p, const Velocity &v) { sys2(p, v); });
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

template<int Types>
void retcon_view3(benchmark::State &state) {
    const auto n = n_of(state);
    retcon::world w{schema_for<Types>()};
    populate(w, n);
    for (auto _ : state) {
        w.view<Position, Velocity, const Accel>().each([](Position &p, Velocity &v, const Accel &a) { sys3(p, v, a); });
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

template<int Types>
void retcon_group(benchmark::State &state) {
    const auto n = n_of(state);
    retcon::world w{schema_for<Types, true>()};
    populate(w, n);
    if (w.group<Position, Velocity>().size() != n) state.SkipWithError("group not packed");
    for (auto _ : state) {
        w.group<Position, const Velocity>().each([](Position &p, const Velocity &v) { sys2(p, v); });
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

template<class R>
void baseline_view1(benchmark::State &state) {
    const auto n = n_of(state);
    R r;
    populate_baseline(r, n);
    for (auto _ : state) {
        r.template each<Position>([](Position &p) { sys1(p); });
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

template<class R>
void baseline_view2(benchmark::State &state) {
    const auto n = n_of(state);
    R r;
    populate_baseline(r, n);
    for (auto _ : state) {
        r.template each<Position, Velocity>([](Position &p, const Velocity &v) { sys2(p, v); });
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

template<class R>
void baseline_view3(benchmark::State &state) {
    const auto n = n_of(state);
    R r;
    populate_baseline(r, n);
    for (auto _ : state) {
        r.template each<Position, Velocity, Accel>([](Position &p, Velocity &v, const Accel &a) { sys3(p, v, a); });
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

// The plain forward loop over n elements (also the baseline of the layouts, ecs_layouts.hpp).
void plain_loop_over(benchmark::State &state, std::uint32_t n) {
    std::vector<vec2> pos(n), vel(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        pos[i] = {fval(i), 0.f};
        vel[i] = {1.f, fval(i)};
    }
    for (auto _ : state) {
        vec2 *p = pos.data();
        const vec2 *v = vel.data();
        benchmark::DoNotOptimize(p);
        benchmark::DoNotOptimize(v);
        for (std::uint32_t i = 0; i < n; ++i) {
            p[i].x += v[i].x;
            p[i].y += v[i].y;
        }
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

void plain_loop(benchmark::State &state) { plain_loop_over(state, n_of(state)); }

// One vector, p += 1: the floor of view1.
void plain_view1_loop(benchmark::State &state) {
    const auto n = n_of(state);
    std::vector<vec2> pos(n);
    for (std::uint32_t i = 0; i < n; ++i) pos[i] = {fval(i), 0.f};
    for (auto _ : state) {
        vec2 *p = pos.data();
        benchmark::DoNotOptimize(p);
        for (std::uint32_t i = 0; i < n; ++i) {
            p[i].x += 1.f;
            p[i].y += 1.f;
        }
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

// The same loop walking backwards, the order retcon's views and groups use (their order is part
// of the world's state, so it is fixed): shows what the direction alone costs.
void plain_reverse_loop(benchmark::State &state) {
    const auto n = n_of(state);
    std::vector<vec2> pos(n), vel(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        pos[i] = {fval(i), 0.f};
        vel[i] = {1.f, fval(i)};
    }
    for (auto _ : state) {
        vec2 *p = pos.data();
        const vec2 *v = vel.data();
        benchmark::DoNotOptimize(p);
        benchmark::DoNotOptimize(v);
        for (std::uint32_t i = n; i-- > 0;) {
            p[i].x += v[i].x;
            p[i].y += v[i].y;
        }
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

// ---------------------------------------------------------------- tag add + remove

template<int Types>
void retcon_tag(benchmark::State &state) {
    const auto n = n_of(state);
    retcon::world w{schema_for<Types>()};
    const auto handles = populate(w, n);
    for (auto _ : state) {
        for (const auto e : handles) w.emplace<Flag>(e);
        for (const auto e : handles) w.remove<Flag>(e);
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

template<class R>
void baseline_tag(benchmark::State &state) {
    const auto n = n_of(state);
    R r;
    const auto handles = populate_baseline(r, n);
    for (auto _ : state) {
        for (const auto e : handles) r.template emplace<Flag>(e);
        for (const auto e : handles) r.template remove<Flag>(e);
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

// ---------------------------------------------------------------- mixed workload
// N entities with a Transform; every 2nd gets a Shader, every 3rd a Physics; destroy every entity
// whose index is not a multiple of 6; then one query over Shader + Physics mutating both.
// "mixed" times all of it in a fresh world (items = N); "mixed_query" times the query alone on
// the resulting world (items = the N/6 entities it visits).

template<class W, class E>
void mixed_build(W &w, std::uint32_t n, std::vector<E> &handles) {
    handles.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto e = w.create();
        handles[i] = e;
        w.template emplace<Transform>(e, fval(i), 0.f, 0.f, 1.f);
        if (i % 2 == 0) w.template emplace<Shader>(e, i, 0u);
        if (i % 3 == 0) w.template emplace<Physics>(e, 0.f, 0.f, 1.f, 0.01f);
    }
    for (std::uint32_t i = 0; i < n; ++i)
        if (i % 6 != 0) w.destroy(handles[i]);
}

void mixed_query(retcon::world &w) {
    w.view<Shader, Physics>().each([](Shader &s, Physics &p) { mixed_sys(s, p); });
}
template<class R>
void mixed_query(R &r) {
    r.template each<Shader, Physics>([](Shader &s, Physics &p) { mixed_sys(s, p); });
}

template<class W>
std::unique_ptr<W> make_world() {
    if constexpr (std::is_same_v<W, retcon::world>) return std::make_unique<W>(schema_for<32>());
    else
        return std::make_unique<W>();
}

template<class W, class E>
void mixed_all(benchmark::State &state) {
    const auto n = n_of(state);
    std::vector<E> handles;
    for (auto _ : state) {
        state.PauseTiming();
        auto w = make_world<W>();
        state.ResumeTiming();
        mixed_build(*w, n, handles);
        mixed_query(*w);
        benchmark::DoNotOptimize(w.get());
        benchmark::ClobberMemory();
        state.PauseTiming();
        w.reset();
        state.ResumeTiming();
    }
    set_items(state, n);
}

template<class W, class E>
void mixed_query_only(benchmark::State &state) {
    const auto n = n_of(state);
    std::vector<E> handles;
    auto w = make_world<W>();
    mixed_build(*w, n, handles);
    for (auto _ : state) {
        mixed_query(*w);
        benchmark::ClobberMemory();
    }
    set_items(state, (n + 5) / 6);
}

// ---------------------------------------------------------------- callgrind workload
// One create / iterate / destroy round, for instruction counts under callgrind at 32 vs 512
// types: valgrind --tool=callgrind --toggle-collect='*churn_workload*' ... (docs/benchmarks.md).

[[gnu::noinline]] void churn_workload(retcon::world &w, std::vector<retcon::entity> &handles) {
    const auto n = static_cast<std::uint32_t>(handles.size());
    for (std::uint32_t i = 0; i < n; ++i) {
        handles[i] = w.create();
        w.emplace<Position>(handles[i], fval(i), 0.f);
        w.emplace<Velocity>(handles[i], 1.f, 0.f);
    }
    w.view<Position, const Velocity>().each([](Position &p, const Velocity &v) { sys2(p, v); });
    for (std::uint32_t i = 0; i < n; ++i) w.emplace<Flag>(handles[i]);
    for (std::uint32_t i = 0; i < n; ++i) w.remove<Flag>(handles[i]);
    for (const auto e : handles) w.destroy(e);
}

template<int Types>
void retcon_churn(benchmark::State &state) {
    const auto n = n_of(state);
    std::vector<retcon::entity> handles(n);
    retcon::world w{schema_for<Types>()};
    churn_workload(w, handles); // warm: pools and pages allocated, later rounds recycle
    for (auto _ : state) {
        churn_workload(w, handles);
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

// ---------------------------------------------------------------- memory per entity

std::string bytes_per_entity_report(std::uint32_t n) {
    retcon::world w{schema_for<32>()};
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto e = w.create();
        w.emplace<Position>(e, 0.f, 0.f);
        w.emplace<Velocity>(e, 0.f, 0.f);
    }
    const double table = static_cast<double>(w.entity_table().size_bytes()) / n;
    double owners = 0, payload = 0;
    for (std::size_t id = 0; id < w.pool_count(); ++id) {
        const auto &p = w.pool_at(id);
        owners += static_cast<double>(p.size() * sizeof(retcon::entity)) / n;
        payload += static_cast<double>(p.payload_bytes()) / n;
    }
    const double derived = static_cast<double>(w.derived_bytes()) / n;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "image %.1f B (payload %.1f + dense owners %.1f + entity table %.1f), derived sparse index %.1f B, "
                  "total %.1f B (N=%u)",
                  payload + owners + table, payload, owners, table, derived, payload + owners + table + derived, n);
    return buf;
}

} // namespace bench

#include "ecs_layouts.hpp"

namespace bench {

// ---------------------------------------------------------------- registration

constexpr std::int64_t sizes[] = {10'000, 100'000, 1'000'000};
constexpr std::int64_t mixed_sizes[] = {1'000, 10'000, 100'000};

void add_stats(benchmark::internal::Benchmark *b, std::int64_t n) {
    with_spread(b->Arg(n)->Unit(benchmark::kMicrosecond), n >= 1'000'000 ? 3 : 5);
}

template<class Fn>
void reg(const std::string &name, Fn fn, const std::int64_t (&ns)[3]) {
    for (const auto n : ns) add_stats(benchmark::RegisterBenchmark(name.c_str(), fn), n);
}

template<int Types>
void register_retcon() {
    const std::string t = "/types:" + std::to_string(Types);
    reg("create/retcon" + t, retcon_create<Types>, sizes);
    reg("destroy/retcon" + t, retcon_destroy<Types>, sizes);
    reg("view1/retcon" + t, retcon_view1<Types>, sizes);
    reg("view2/retcon" + t, retcon_view2<Types>, sizes);
    reg("view3/retcon" + t, retcon_view3<Types>, sizes);
    reg("group/retcon" + t, retcon_group<Types>, sizes);
    reg("tag/retcon" + t, retcon_tag<Types>, sizes);
    benchmark::RegisterBenchmark(("callgrind_churn/retcon" + t).c_str(), retcon_churn<Types>)
        ->Arg(10'000)
        ->Iterations(4)
        ->Repetitions(1)
        ->Unit(benchmark::kMicrosecond);
}

void register_all() {
    register_retcon<32>();
    register_retcon<128>();
    register_retcon<512>();

    reg("create/naive", baseline_create<naive_ecs>, sizes);
    reg("create/minimal", baseline_create<minimal_ecs>, sizes);
    reg("destroy/naive", baseline_destroy<naive_ecs>, sizes);
    reg("destroy/minimal", baseline_destroy<minimal_ecs>, sizes);
    reg("view1/naive", baseline_view1<naive_ecs>, sizes);
    reg("view1/plain", plain_view1_loop, sizes);
    reg("view2/naive", baseline_view2<naive_ecs>, sizes);
    reg("view2/minimal", baseline_view2<minimal_ecs>, sizes);
    reg("view2/plain", plain_loop, sizes);
    reg("view2/plain_reverse", plain_reverse_loop, sizes);
    reg("view3/naive", baseline_view3<naive_ecs>, sizes);
    reg("tag/naive", baseline_tag<naive_ecs>, sizes);
    reg("tag/minimal", baseline_tag<minimal_ecs>, sizes);

    reg("mixed/retcon/types:32", mixed_all<retcon::world, retcon::entity>, mixed_sizes);
    reg("mixed/naive", mixed_all<naive_ecs, std::uint32_t>, mixed_sizes);
    reg("mixed/minimal", mixed_all<minimal_ecs, std::uint32_t>, mixed_sizes);
    reg("mixed_query/retcon/types:32", mixed_query_only<retcon::world, retcon::entity>, mixed_sizes);
    reg("mixed_query/naive", mixed_query_only<naive_ecs, std::uint32_t>, mixed_sizes);
    reg("mixed_query/minimal", mixed_query_only<minimal_ecs, std::uint32_t>, mixed_sizes);
    layouts::register_layouts(add_stats);
    // Past a million entities: only with 64-bit handles (RETCON_ENTITY_64, docs/config.md).
    if constexpr (retcon::entity_traits::index_bits > 20) {
        constexpr std::int64_t large[] = {2'000'000, 4'000'000};
        for (const auto n : large) {
            add_stats(benchmark::RegisterBenchmark("create/retcon/types:32", retcon_create<32>), n);
            add_stats(benchmark::RegisterBenchmark("destroy/retcon/types:32", retcon_destroy<32>), n);
            add_stats(benchmark::RegisterBenchmark("view2/retcon/types:32", retcon_view2<32>), n);
            add_stats(benchmark::RegisterBenchmark("group/retcon/types:32", retcon_group<32>), n);
            add_stats(benchmark::RegisterBenchmark("view2/plain", plain_loop), n);
            add_stats(benchmark::RegisterBenchmark("create/minimal", baseline_create<minimal_ecs>), n);
            add_stats(benchmark::RegisterBenchmark("destroy/minimal", baseline_destroy<minimal_ecs>), n);
        }
    }
}

} // namespace bench

int main(int argc, char **argv) {
    // Keep freed memory in the process: otherwise every fresh world (and every baseline) pays
    // the kernel's first-touch page faults, which on this VM cost more than the ECS work itself
    // (create 1M: 140 ms with, 17 ms without). Same setting for retcon and the baselines.
    bench::keep_freed_memory();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::AddCustomContext("bytes_per_entity(Position+Velocity)", bench::bytes_per_entity_report(100'000));
    bench::register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
