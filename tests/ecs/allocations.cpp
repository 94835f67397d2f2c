// Steady state allocates nothing: after warm-up, a tick of iteration and churn at constant
// population (create, emplace, remove, destroy, command buffer, resources, sort) performs zero
// heap allocations.
#include "common/components.hpp"
#include "common/counting_allocator.hpp"
#include "ecs/helpers.hpp"

#include <catch2/catch.hpp>

#include <memory>
#include <vector>

using namespace retcon;
using namespace retcon::test;

TEST_CASE("the allocation counter counts (negative control)", "[allocations]") {
    std::size_t seen = 0;
    {
        allocation_counter counter;
        std::vector<int> v;
        v.push_back(1);
        seen = counter.count();
    }
    CHECK(seen >= 1);
    {
        allocation_counter counter;
        auto p = std::make_unique<std::uint64_t[]>(64);
        p[0] = 1;
        CHECK(counter.count() == 1);
    }
    // Allocations outside a counter's lifetime are not counted.
    std::vector<int> outside(100);
    allocation_counter counter;
    CHECK(counter.count() == 0);
    // And the world does allocate when it grows: the steady-state test below would notice.
    world w{grouped_schema()};
    const auto before = counter.count();
    for (int i = 0; i < 100; ++i) w.emplace<position>(w.create(), 0.f, 0.f);
    CHECK(counter.count() > before);
}

namespace {
constexpr std::size_t population = 1000;
constexpr std::size_t churn = 50;

struct game {
    world w{grouped_schema()};
    command_buffer cb{w};
    std::vector<entity> live;
    std::size_t cursor = 0;
    std::uint32_t tick_no = 0;

    game() {
        live.reserve(population);
        w.set_resource<game_clock>(0u, 60u);
        w.set_resource<rng_state>(std::uint64_t{1});
        for (std::size_t i = 0; i < population; ++i) live.push_back(spawn());
    }

    entity spawn() {
        const entity e = w.create();
        const auto k = to_index(e) + tick_no;
        w.emplace<position>(e, float(k % 100), 0.f);
        if (k % 2 == 0) w.emplace<velocity>(e, 1.f, 0.f);
        if (k % 3 == 0) w.emplace<health>(e, 100, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
        if (k % 5 == 0) w.emplace<frozen>(e);
        if (k % 7 == 0) w.emplace<name_tag>(e, fixed_string<16>{"bullet"});
        return e;
    }

    void tick() {
        ++tick_no;
        ++w.resource<game_clock>().frame;
        auto &rng = w.resource<rng_state>().s;
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;

        // Systems: group iteration, views with exclusion, a tag filter.
        w.group<position, velocity>().each([](position &p, const velocity &v) { p.x += v.dx; });
        w.view<position, const health>(exclude<frozen>).each([](position &p, const health &h) { p.y += float(h.hp); });
        std::uint32_t frozen_count = 0;
        for (auto [e, p] : w.view<frozen, const position>()) frozen_count += p.x > 0.f ? 1u : 0u, (void)e;
        // Deferred changes recorded during iteration.
        w.view<const position, velocity>().each([&](entity e, const position &p, velocity &) {
            if (p.x > 500.f) cb.remove<velocity>(e);
        });
        w.view<const position>(exclude<velocity>).each([&](entity e, const position &) {
            if (to_index(e) % 13 == tick_no % 13) cb.emplace<velocity>(e, 1.f, float(frozen_count));
        });
        cb.apply();
        // Direct structural changes: toggle components, churn entities.
        for (std::size_t i = 0; i < churn; ++i) {
            const entity e = live[(cursor + i * 17) % population];
            if (!w.try_remove<health>(e)) w.emplace<health>(e, 1, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
            if (!w.try_remove<marked>(e)) w.emplace<marked>(e);
        }
        for (std::size_t i = 0; i < churn; ++i) w.destroy(live[(cursor + i) % population]);
        for (std::size_t i = 0; i < churn; ++i) live[(cursor + i) % population] = spawn();
        cursor = (cursor + churn) % population;
        if (tick_no % 10 == 0) w.sort<health>([](const health &a, const health &b) { return a.hp < b.hp; });
        w.remove_resource<rng_state>();
        w.set_resource<rng_state>(rng + 1u);
    }
};
} // namespace

TEST_CASE("steady-state ticks perform no heap allocation", "[allocations]") {
    game g;
    for (int i = 0; i < 200; ++i) g.tick(); // warm-up: every buffer reaches its high-water mark
    const auto table_size = g.w.entity_table().size();
    std::size_t allocations = 0;
    {
        allocation_counter counter;
        for (int i = 0; i < 300; ++i) g.tick();
        allocations = counter.count();
    }
    CHECK(allocations == 0);
    // The workload is real: constant population, recycled indices, a busy group.
    CHECK(g.w.alive() == population);
    CHECK(g.w.entity_table().size() == table_size);
    CHECK(g.w.group<position, velocity>().size() > 0);
    CHECK(group_invariants(g.w).empty());
}
