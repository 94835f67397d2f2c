// The visit order of views, range-for and groups (blocks of 4096, docs/ecs.md "Order"), the safety
// of destroying or stripping the visited entity in every direction, and the alignment a view of
// a mutable world performs on its pools.
#include "common/components.hpp"
#include "ecs/helpers.hpp"

#include <retcon/ecs/walk.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {

// The expected sequences below are simulation semantics: changing the block size changes them,
// and must bump retcon::simulation_semantics (docs/determinism.md, "Simulation semantics").
constexpr std::uint32_t block = 4096;
static_assert(internal::walk_block == block);
static_assert(simulation_semantics == 2, "the order these tests pin down is simulation semantics 2");

/// The order the rule in docs/ecs.md ("Order") gives for n positions when nothing is removed,
/// written out independently of internal::walk_blocks: blocks of `block` from position 0, highest
/// first; a block [lo, hi) goes up when n >= hi + block, else down.
std::vector<std::uint32_t> spec_order(std::uint32_t n) {
    std::vector<std::uint32_t> out;
    std::uint32_t top = (n + block - 1u) / block;
    while (top-- > 0) {
        const std::uint32_t lo = top * block;
        const std::uint32_t hi = std::min(n, lo + block);
        if (n >= hi + block) {
            for (std::uint32_t j = lo; j < hi; ++j) out.push_back(j);
        } else {
            for (std::uint32_t j = hi; j-- > lo;) out.push_back(j);
        }
    }
    return out;
}

/// n entities with position and velocity, created in order (both pools line up); position.x holds
/// the creation number.
world lined_up(const schema &s, std::uint32_t n) {
    world w{s};
    for (std::uint32_t i = 0; i < n; ++i) {
        const entity x = w.create();
        w.emplace<position>(x, float(i), float(i));
        w.emplace<velocity>(x, float(i), 0.f);
    }
    return w;
}

template<class View>
std::vector<std::uint32_t> order_by_each(const View &v) {
    std::vector<std::uint32_t> out;
    v.each([&](entity, const position &p, auto &...) { out.push_back(static_cast<std::uint32_t>(p.x)); });
    return out;
}

template<class View>
std::vector<std::uint32_t> order_by_range(const View &v) {
    std::vector<std::uint32_t> out;
    for (auto item : v) out.push_back(static_cast<std::uint32_t>(std::get<1>(item).x));
    return out;
}

template<class View>
std::vector<entity> entities_by_each(const View &v) {
    std::vector<entity> out;
    v.each([&](entity x, auto &...) { out.push_back(x); });
    return out;
}

template<class View>
std::vector<entity> entities_by_range(const View &v) {
    std::vector<entity> out;
    for (auto item : v) out.push_back(std::get<0>(item));
    return out;
}

enum class layout { lined_up, subset, shuffled, two_sided };

/// A seeded layout of n entities over position and velocity (position.x and velocity.dx hold the
/// entity index); frozen on about one in five, health on about one in three.
///  - lined_up: both components, added in creation order;
///  - subset: every entity has position, a random half has velocity;
///  - shuffled: both components, velocity added in a shuffled order;
///  - two_sided: 70% have position and, independently, 60% velocity.
world make_layout(const schema &s, layout kind, std::uint32_t n, std::uint32_t seed) {
    std::mt19937 rng{seed};
    world w{s};
    std::vector<entity> made;
    for (std::uint32_t i = 0; i < n; ++i) made.push_back(w.create());
    std::vector<entity> vel_order = made;
    if (kind == layout::shuffled)
        for (std::uint32_t i = n; i > 1; --i) std::swap(vel_order[i - 1], vel_order[rng() % i]);
    for (const entity x : made) {
        const float id = float(to_index(x));
        if (kind != layout::two_sided || rng() % 100u < 70u) w.emplace<position>(x, id, id);
        if (rng() % 5u == 0u) w.emplace<frozen>(x);
        if (rng() % 3u == 0u)
            w.emplace<health>(x, static_cast<std::int32_t>(id), std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
    }
    for (const entity x : vel_order) {
        const bool has = kind == layout::subset      ? rng() % 2u == 0u
                         : kind == layout::two_sided ? rng() % 100u < 60u
                                                     : true;
        if (has) w.emplace<velocity>(x, float(to_index(x)), 0.f);
    }
    return w;
}

template<class... Get, class... Exclude>
std::set<entity> matches(const world &w, exclude_t<Exclude...> = {}) {
    std::set<entity> out;
    w.each([&](entity x) {
        if (w.all_of<Get...>(x) && !(w.has<Exclude>(x) || ...)) out.insert(x);
    });
    return out;
}

const pool &pool_of(const world &w, const char *name) { return w.pool_at(w.get_schema().find_component(name)); }

std::vector<entity> owners_of(const world &w, const char *name) {
    const pool &p = pool_of(w, name);
    return {p.owners().data(), p.owners().data() + p.size()};
}

} // namespace

TEST_CASE("walk: the visit order of views, range-for and groups over n positions", "[view][group][walk]") {
    const std::uint32_t n = GENERATE(0u, 1u, block - 1u, block, block + 1u, 2u * block - 1u, 2u * block,
                                     2u * block + 1u, 4u * block - 24u, 16u * block);
    CAPTURE(n);
    const auto expected = spec_order(n);
    REQUIRE(expected.size() == n);

    world w = lined_up(standard_schema(), n);
    CHECK(order_by_each(w.view<position, velocity>()) == expected);
    CHECK(order_by_range(w.view<position, velocity>()) == expected);
    CHECK(order_by_each(w.view<position>()) == expected);
    CHECK(order_by_range(w.view<position>()) == expected);
    CHECK(order_by_each(w.view<position, velocity>(exclude<marked>)) == expected);
    const world &cw = w;
    CHECK(order_by_each(cw.view<const position, const velocity>()) == expected);
    CHECK(order_by_range(cw.view<const position, const velocity>()) == expected);

    world g = lined_up(grouped_schema(), n);
    REQUIRE(g.group<position, velocity>().size() == n);
    std::vector<std::uint32_t> by_group;
    g.group<position, velocity>().each([&](position &p, velocity &) { by_group.push_back(std::uint32_t(p.x)); });
    CHECK(by_group == expected);
    CHECK(order_by_each(g.view<position, velocity>()) == expected);
}

TEST_CASE("walk: the order around the block edges, spelled out", "[view][walk]") {
    // Under two blocks of positions the walk is fully backwards.
    world w511 = lined_up(standard_schema(), 2u * block - 1u);
    const auto o511 = order_by_each(w511.view<position, velocity>());
    CHECK(o511.front() == 2u * block - 2u);
    CHECK(o511.back() == 0u);
    CHECK(std::is_sorted(o511.rbegin(), o511.rend()));
    // At two blocks the lowest block goes up: 2b - 1 .. b, then 0 .. b - 1.
    world w512 = lined_up(standard_schema(), 2u * block);
    const auto o512 = order_by_each(w512.view<position, velocity>());
    CHECK(o512[0] == 2u * block - 1u);
    CHECK(o512[block - 1u] == block);
    CHECK(o512[block] == 0u);
    CHECK(o512[2u * block - 1u] == block - 1u);
    // Four blocks less 24: [3b, 4b - 24) and [2b, 3b) down, [b, 2b) and [0, b) up.
    const std::uint32_t n = 4u * block - 24u;
    world w1000 = lined_up(standard_schema(), n);
    const auto o1000 = order_by_each(w1000.view<position>());
    CHECK(o1000[0] == n - 1u);
    CHECK(o1000[block - 24u] == 3u * block - 1u);
    CHECK(o1000[2u * block - 24u] == block);
    CHECK(o1000[2u * block - 23u] == block + 1u);
    CHECK(o1000[4u * block - 24u - block] == 0u);
    CHECK(o1000[n - 1u] == block - 1u);
}

TEST_CASE("walk: a block goes up only with a block of visited positions above it at the time", "[view][walk]") {
    // Three blocks of entities: [2b, 3b) down; destroying every visited entity there leaves 2b,
    // so [b, 2b) (which needs 3b) goes down too, and [0, b) (needs 2b) goes up.
    world w = lined_up(standard_schema(), 3u * block);
    std::vector<std::uint32_t> seen;
    w.view<position, velocity>().each([&](entity x, position &p, velocity &) {
        seen.push_back(std::uint32_t(p.x));
        if (p.x >= float(2u * block)) w.destroy(x);
    });
    REQUIRE(seen.size() == 3u * block);
    CHECK(seen[block] == 2u * block - 1u); // [b, 2b) down
    CHECK(seen[2u * block - 1u] == block);
    CHECK(seen[2u * block] == 0u); // [0, b) up
    CHECK(seen[3u * block - 1u] == block - 1u);
    // Without the destroys [b, 2b) goes up.
    world u = lined_up(standard_schema(), 3u * block);
    const auto o = order_by_each(u.view<position, velocity>());
    CHECK(o[block] == block);
}

TEST_CASE("walk: destroying or stripping the visited entity in any layout visits every match once",
          "[view][walk][random]") {
    const bool grouped = GENERATE(false, true);
    const auto kind = GENERATE(layout::lined_up, layout::subset, layout::shuffled, layout::two_sided);
    // One upward block with one position to spare, and several blocks ending in a partial one
    // (the exact orders at every block edge are pinned by the visit-order test above).
    const std::uint32_t n = GENERATE(2u * block + 1u, 4u * block - 24u);
    const int percent = GENERATE(30, 100); // (no mutation at all: the agreement test below)
    const int action = GENERATE(0, 1, 2);  // destroy, remove position, remove velocity (if any)
    const bool range_for = GENERATE(false, true);
    CAPTURE(grouped, static_cast<int>(kind), n, percent, action, range_for);
    std::mt19937 rng{n * 7u + static_cast<std::uint32_t>(percent)};
    world w = make_layout(grouped ? grouped_schema() : standard_schema(), kind, n, n + 1u);

    auto run = [&](const auto &view, const std::set<entity> &expected) {
        // Counted, then checked once: one Catch assertion per visit would be most of the cost.
        std::vector<int> visits(w.entity_table().size()); // by entity index
        std::size_t wrong_payload = 0;
        auto act = [&](entity x, const position &p) {
            if (!w.valid(x) || p.x != float(to_index(x))) { // the payload belongs to the visited entity
                ++wrong_payload;
                return;
            }
            ++visits[to_index(x)];
            if (static_cast<int>(rng() % 100u) >= percent) return;
            if (action == 0) w.destroy(x);
            else if (action == 1)
                w.remove<position>(x);
            else
                w.try_remove<velocity>(x);
        };
        if (range_for) {
            for (auto item : view) act(std::get<0>(item), std::get<1>(item));
        } else {
            view.each([&](entity x, const position &p, auto &...) { act(x, p); });
        }
        CHECK(wrong_payload == 0);
        std::size_t missed = 0, twice = 0, unexpected = 0;
        for (const entity x : expected) missed += visits[to_index(x)] == 0 ? 1u : 0u;
        std::size_t visited = 0;
        for (std::size_t i = 0; i < visits.size(); ++i) {
            visited += visits[i] != 0 ? 1u : 0u;
            twice += visits[i] > 1 ? 1u : 0u;
        }
        unexpected = visited + missed - expected.size(); // visited entities outside the expected set
        CHECK(missed == 0);
        CHECK(twice == 0);
        CHECK(unexpected == 0);
        CHECK(group_invariants(w).empty());
    };
    run(w.view<position, velocity>(), matches<position, velocity>(w));
    w = make_layout(grouped ? grouped_schema() : standard_schema(), kind, n, n + 2u);
    run(w.view<position, const velocity>(exclude<frozen>), matches<position, velocity>(w, exclude<frozen>));
    w = make_layout(grouped ? grouped_schema() : standard_schema(), kind, n, n + 3u);
    run(w.view<position, velocity, const health>(), matches<position, velocity, health>(w));
    // One pool, owned by a group shorter than it (grouped, two-sided): leaving the group swaps
    // the visited entity with the group's last member, which must lie above an upward block.
    w = make_layout(grouped ? grouped_schema() : standard_schema(), kind, n, n + 4u);
    run(w.view<position>(), matches<position>(w));
}

TEST_CASE("walk: leaving a group that ends inside a block never moves an unvisited entity", "[view][group][walk]") {
    // Four blocks of entities with position; the first block and a half also have velocity, so
    // the group over both is 1.5 blocks long. A view over position alone walks [3b, 4b) down and
    // [2b, 3b) up; [b, 2b) must go down although the pool is big enough, because stripping
    // velocity swaps the visited entity with the group's last member, inside that block.
    world w{grouped_schema()};
    const std::uint32_t n = 4u * block;
    const std::uint32_t g = block + block / 2u;
    for (std::uint32_t i = 0; i < n; ++i) {
        const entity x = w.create();
        w.emplace<position>(x, float(i), float(i));
        if (i < g) w.emplace<velocity>(x, float(i), 0.f);
    }
    REQUIRE(w.group<position, velocity>().size() == g);
    std::map<entity, int> visits;
    w.view<position>().each([&](entity x, position &p) {
        REQUIRE(p.x == float(to_index(x)));
        ++visits[x];
        w.try_remove<velocity>(x);
    });
    CHECK(visits.size() == n);
    for (const auto &[x, count] : visits) CHECK(count == 1);
    CHECK(w.group<position, velocity>().size() == 0u);
    CHECK(group_invariants(w).empty());
}

TEST_CASE("walk: each and range-for agree in every layout, before and after alignment", "[view][walk][random]") {
    const bool grouped = GENERATE(false, true);
    const auto kind = GENERATE(layout::lined_up, layout::subset, layout::shuffled, layout::two_sided);
    const std::uint32_t n = GENERATE(300u, 2u * block + 1000u, 5u * block);
    CAPTURE(grouped, static_cast<int>(kind), n);
    const schema s = grouped ? grouped_schema() : standard_schema();
    // Two identical worlds: one walked by each, the other by range-for, twice (the second walk
    // comes after the first one's alignment).
    world a = make_layout(s, kind, n, 9u);
    world b = make_layout(s, kind, n, 9u);
    for (int round = 0; round < 3; ++round) {
        CAPTURE(round);
        const auto by_each = entities_by_each(a.view<position, velocity>());
        const auto by_range = entities_by_range(b.view<position, velocity>());
        CHECK(by_each == by_range);
        CHECK(std::set<entity>(by_each.begin(), by_each.end()) == matches<position, velocity>(a));
        CHECK(by_each.size() == matches<position, velocity>(a).size());
        CHECK(capture(a) == capture(b));
        const auto h_each = entities_by_each(a.view<health, const position>(exclude<frozen>));
        const auto h_range = entities_by_range(b.view<health, const position>(exclude<frozen>));
        CHECK(h_each == h_range);
        CHECK(capture(a) == capture(b));
    }
    // On one world, after alignment: each and range-for give the same sequence.
    CHECK(entities_by_each(a.view<position, velocity>()) == entities_by_range(a.view<position, velocity>()));
}

TEST_CASE("walk: a view of a mutable world aligns its pools to the lead", "[view][walk][align]") {
    // Shuffled, 200 entities: the budget (256 swaps) covers it in one pass.
    world w = make_layout(standard_schema(), layout::shuffled, 200, 5u);
    REQUIRE(owners_of(w, "position") != owners_of(w, "velocity"));
    auto v = w.view<position, velocity>();
    (void)entities_by_each(v);
    CHECK(v.alignment_swaps() > 0u);
    CHECK(owners_of(w, "position") == owners_of(w, "velocity"));
    const auto epoch = pool_of(w, "position").epoch() + pool_of(w, "velocity").epoch();
    auto again = w.view<position, velocity>();
    (void)entities_by_each(again);
    (void)entities_by_range(again);
    CHECK(again.alignment_swaps() == 0u);
    CHECK(pool_of(w, "position").epoch() + pool_of(w, "velocity").epoch() == epoch);
    CHECK(group_invariants(w).empty());
}

TEST_CASE("walk: alignment is bounded per call and converges within four calls", "[view][walk][align]") {
    const auto kind = GENERATE(layout::shuffled, layout::subset);
    const std::uint32_t n = GENERATE(4096u, 10000u);
    CAPTURE(static_cast<int>(kind), n);
    world w = make_layout(standard_schema(), kind, n, 3u);
    const std::uint32_t lead = std::min(w.size<position>(), w.size<velocity>());
    const std::uint64_t budget = std::max<std::uint64_t>(256u, (lead + 3u) / 4u);
    int calls = 0;
    for (; calls < 8; ++calls) {
        auto v = w.view<position, velocity>();
        (void)entities_by_each(v);
        CHECK(v.alignment_swaps() <= budget); // one pool to align, at most the budget
        if (v.alignment_swaps() == 0u) break;
    }
    CHECK(calls <= 4);
    const auto l = owners_of(w, w.size<position>() <= w.size<velocity>() ? "position" : "velocity");
    const auto o = owners_of(w, w.size<position>() <= w.size<velocity>() ? "velocity" : "position");
    REQUIRE(o.size() >= l.size());
    CHECK(std::equal(l.begin(), l.end(), o.begin())); // the lead's entities at the lead's positions
}

TEST_CASE("walk: const views, group-owned pools and excluded pools are never reordered", "[view][walk][align]") {
    SECTION("a view of a const world writes nothing") {
        world w = make_layout(standard_schema(), layout::shuffled, 3000, 4u);
        const auto before = capture(w);
        const world &cw = w;
        (void)entities_by_each(cw.view<const position, const velocity>());
        (void)entities_by_range(cw.view<const position, const velocity>());
        CHECK(capture(w) == before);
        CHECK(cw.view<const position, const velocity>().alignment_swaps() == 0u);
        // The same walk through the mutable world does reorder (so the check above can fail).
        (void)entities_by_each(w.view<position, velocity>());
        CHECK_FALSE(capture(w) == before);
    }
    SECTION("a group-owned pool keeps its order") {
        // health is the lead; position is owned by the group and stays as it is.
        world w = make_layout(grouped_schema(), layout::shuffled, 3000, 6u);
        REQUIRE(w.size<health>() < w.size<position>());
        const auto pos = owners_of(w, "position");
        const auto vel = owners_of(w, "velocity");
        auto v = w.view<health, position>();
        (void)entities_by_each(v);
        CHECK(v.alignment_swaps() == 0u);
        CHECK(owners_of(w, "position") == pos);
        CHECK(owners_of(w, "velocity") == vel);
        CHECK(group_invariants(w).empty());
    }
    SECTION("an excluded pool keeps its order") {
        world w = make_layout(standard_schema(), layout::shuffled, 3000, 7u);
        const auto frz = owners_of(w, "frozen");
        const auto pos = owners_of(w, "position");
        auto v = w.view<health, position>(exclude<frozen>);
        (void)entities_by_each(v);
        CHECK(owners_of(w, "frozen") == frz);
        CHECK(owners_of(w, "position") != pos); // the included one was aligned to health
    }
}

TEST_CASE("walk: worlds given the same operations and views stay identical, restored or not", "[view][walk][random]") {
    const bool grouped = GENERATE(false, true);
    CAPTURE(grouped);
    const schema s = grouped ? grouped_schema() : standard_schema();
    world a = make_layout(s, layout::shuffled, 3u * block, 11u);
    world b{s};
    std::mt19937 rng_a{77};
    std::mt19937 rng_b{77};
    // One step: views that may destroy or strip, then churn (remove and re-add, create).
    auto step = [](world &w, std::mt19937 &rng) {
        w.view<position, velocity>().each([&](entity x, position &p, velocity &v) {
            p.x += v.dy;
            if (rng() % 40u == 0u) w.destroy(x);
        });
        w.view<health, const position>(exclude<frozen>).each([&](entity x, health &h, const position &) {
            ++h.armor;
            if (rng() % 30u == 0u) w.remove<health>(x);
        });
        std::vector<entity> live;
        w.each([&](entity x) { live.push_back(x); });
        for (int k = 0; k < 40 && !live.empty(); ++k) {
            const entity x = live[rng() % live.size()];
            if (!w.valid(x)) continue;
            if (w.has<velocity>(x)) {
                w.remove<velocity>(x);
                w.emplace<velocity>(x, float(to_index(x)), 0.f);
            } else {
                w.emplace_or_replace<health>(x, 1, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
            }
        }
        for (int k = 0; k < 20; ++k) {
            const entity x = w.create();
            w.emplace<position>(x, float(to_index(x)), 0.f);
            if (rng() % 2u == 0u) w.emplace<velocity>(x, float(to_index(x)), 0.f);
        }
    };
    for (int frame = 0; frame < 12; ++frame) {
        CAPTURE(frame);
        if (frame == 4) { // b starts from a's state, with none of a's derived notes
            assign(b, capture(a));
            rng_b = rng_a;
        }
        step(a, rng_a);
        if (frame >= 4) {
            step(b, rng_b);
            REQUIRE(capture(a) == capture(b));
        }
    }
}
