// Sorting pools: by value, by entity, deterministic tie-breaks, sort_as, group-owned pools.
#include "common/components.hpp"
#include "common/misuse.hpp"
#include "ecs/helpers.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {
/// The owners of T's pool, in pool order.
template<class T>
std::vector<entity> order_of(const world &w) {
    const pool &p = w.pool_at(w.get_schema().find_component(type_info_of<T>().name));
    return {p.owners().data(), p.owners().data() + p.size()};
}

template<class T>
void check_pool_consistent(const world &w) {
    for (const entity e : order_of<T>(w)) REQUIRE(w.entity_of(w.get<T>(e)) == e);
}
} // namespace

TEST_CASE("sort by value", "[sort]") {
    world w{standard_schema()};
    std::vector<entity> e;
    const int keys[] = {5, 3, 9, 1, 7, 2, 8, 0, 6, 4};
    for (int k : keys) {
        e.push_back(w.create());
        w.emplace<health>(e.back(), k, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
    }
    w.sort<health>([](const health &a, const health &b) { return a.hp < b.hp; });
    const auto order = order_of<health>(w);
    REQUIRE(order.size() == 10);
    for (std::size_t i = 0; i < order.size(); ++i) CHECK(w.get<health>(order[i]).hp == static_cast<int>(i));
    check_pool_consistent<health>(w);
    // The payload moved with the owners.
    for (std::size_t i = 0; i < e.size(); ++i) CHECK(w.get<health>(e[i]).hp == keys[i]);

    w.sort<health>([](const health &a, const health &b) { return a.hp > b.hp; });
    const auto desc = order_of<health>(w);
    for (std::size_t i = 0; i < desc.size(); ++i) CHECK(w.get<health>(desc[i]).hp == 9 - static_cast<int>(i));
}

TEST_CASE("sort by entity", "[sort]") {
    world w{standard_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 20; ++i) e.push_back(w.create());
    for (int i = 19; i >= 0; i -= 2) w.emplace<position>(e[static_cast<std::size_t>(i)], float(i), 0.f);
    for (int i = 0; i < 20; i += 2) w.emplace<position>(e[static_cast<std::size_t>(i)], float(i), 0.f);
    w.sort<position>([](entity a, entity b) { return to_index(a) > to_index(b); });
    const auto order = order_of<position>(w);
    REQUIRE(order.size() == 20);
    for (std::size_t i = 0; i < order.size(); ++i) CHECK(to_index(order[i]) == 19u - i);
    for (const entity x : e) CHECK(w.get<position>(x).x == float(to_index(x)));
}

TEST_CASE("sort breaks ties by entity index, whatever the insertion order", "[sort]") {
    auto sorted = [](bool reverse_insert) {
        world w{standard_schema()};
        std::vector<entity> e;
        for (int i = 0; i < 30; ++i) e.push_back(w.create());
        std::vector<int> order(30);
        for (int i = 0; i < 30; ++i) order[static_cast<std::size_t>(i)] = reverse_insert ? 29 - i : (i * 7) % 30;
        for (int i : order) // three distinct keys, ten entities each
            w.emplace<health>(e[static_cast<std::size_t>(i)], i % 3, std::uint16_t{0}, std::uint8_t{0},
                              std::uint8_t{0});
        w.sort<health>([](const health &a, const health &b) { return a.hp < b.hp; });
        std::vector<std::uint32_t> out;
        for (const entity x : order_of<health>(w)) out.push_back(to_index(x));
        return out;
    };
    const auto a = sorted(false);
    const auto b = sorted(true);
    CHECK(a == b);
    REQUIRE(a.size() == 30);
    for (std::size_t i = 1; i < a.size(); ++i) {
        const auto ka = a[i - 1] % 3;
        const auto kb = a[i] % 3;
        CHECK(ka <= kb);
        if (ka == kb) CHECK(a[i - 1] < a[i]);
    }
    // A comparator that says everything is equal sorts by index.
    world w{standard_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 10; ++i) e.push_back(w.create());
    for (int i = 9; i >= 0; --i) w.emplace<velocity>(e[static_cast<std::size_t>(i)], 0.f, 0.f);
    w.sort<velocity>([](const velocity &, const velocity &) { return false; });
    const auto o = order_of<velocity>(w);
    for (std::size_t i = 0; i < o.size(); ++i) CHECK(to_index(o[i]) == i);
}

TEST_CASE("sort of a large pool keeps owners and payloads together", "[sort]") {
    world w{standard_schema()};
    std::uint32_t seed = 7;
    for (int i = 0; i < 2000; ++i) {
        seed = seed * 1103515245u + 12345u;
        const entity x = w.create();
        w.emplace<health>(x, static_cast<std::int32_t>(seed >> 20), static_cast<std::uint16_t>(to_index(x)),
                          std::uint8_t{0}, std::uint8_t{0});
    }
    w.sort<health>([](const health &a, const health &b) { return a.hp < b.hp; });
    const auto order = order_of<health>(w);
    for (std::size_t i = 0; i < order.size(); ++i) {
        REQUIRE(w.get<health>(order[i]).armor == static_cast<std::uint16_t>(to_index(order[i])));
        if (i > 0) {
            const auto &p = w.get<health>(order[i - 1]);
            const auto &q = w.get<health>(order[i]);
            REQUIRE((p.hp < q.hp || (p.hp == q.hp && to_index(order[i - 1]) < to_index(order[i]))));
        }
    }
    check_pool_consistent<health>(w);
}

TEST_CASE("sort of a tag pool by entity", "[sort]") {
    world w{standard_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 8; ++i) e.push_back(w.create());
    for (int i : {3, 1, 7, 0, 5}) w.emplace<frozen>(e[static_cast<std::size_t>(i)]);
    w.sort<frozen>([](entity a, entity b) { return to_index(a) < to_index(b); });
    const auto o = order_of<frozen>(w);
    CHECK(o == std::vector<entity>{e[0], e[1], e[3], e[5], e[7]});
}

TEST_CASE("sort_as puts shared entities first in the other pool's order", "[sort]") {
    world w{standard_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 12; ++i) e.push_back(w.create());
    for (int i = 0; i < 12; ++i) w.emplace<position>(e[static_cast<std::size_t>(i)], float(i), 0.f);
    for (int i : {9, 2, 11, 4, 6}) w.emplace<velocity>(e[static_cast<std::size_t>(i)], float(i), 0.f);
    w.emplace<velocity>(w.create(), -1.f, 0.f); // in velocity only
    w.sort_as<position, velocity>();
    const auto p = order_of<position>(w);
    const auto v = order_of<velocity>(w);
    // velocity order without the entity position lacks
    std::vector<entity> shared;
    for (const entity x : v)
        if (w.has<position>(x)) shared.push_back(x);
    REQUIRE(shared.size() == 5);
    CHECK(std::vector<entity>(p.begin(), p.begin() + 5) == shared);
    std::vector<entity> all = p;
    std::sort(all.begin(), all.end());
    CHECK(all == e); // a permutation of the same owners
    for (int i = 0; i < 12; ++i) CHECK(w.get<position>(e[static_cast<std::size_t>(i)]).x == float(i));
    check_pool_consistent<position>(w);
}

TEST_CASE("sort is deterministic across worlds", "[sort]") {
    auto run = [] {
        world w{standard_schema()};
        for (int i = 0; i < 100; ++i) {
            const entity x = w.create();
            w.emplace<health>(x, i % 7, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
            w.emplace<position>(x, float(i % 4), 0.f);
        }
        w.sort<health>([](const health &a, const health &b) { return a.hp < b.hp; });
        w.sort_as<position, health>();
        return capture(w);
    };
    CHECK(run() == run());
}

TEST_CASE("misuse: sorting a group-owned pool", "[sort][misuse]") {
    world w{grouped_schema()};
    for (int i = 0; i < 5; ++i) {
        const entity x = w.create();
        w.emplace<position>(x, float(5 - i), 0.f);
        if (i % 2) w.emplace<velocity>(x, 0.f, 0.f);
    }
    const auto before = capture(w);
    REQUIRE_MISUSE(w.sort<position>([](const position &a, const position &b) { return a.x < b.x; }),
                   "sort: position is owned by a group");
    REQUIRE_MISUSE(w.sort<velocity>([](entity a, entity b) { return a < b; }), "velocity is owned by a group");
    REQUIRE_MISUSE((w.sort_as<position, health>()), "owned by a group");
    CHECK(capture(w) == before);
    // Sorting a pool outside the group is fine.
    w.emplace<health>(w.create(), 1, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
    w.sort<health>([](const health &a, const health &b) { return a.hp < b.hp; });
    w.sort_as<health, position>();
    CHECK(group_invariants(w).empty());
}
