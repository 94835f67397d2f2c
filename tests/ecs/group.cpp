// Owning groups: membership, packing, lockstep iteration, destruction during iteration.
#include "common/components.hpp"
#include "common/misuse.hpp"
#include "ecs/helpers.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <type_traits>
#include <utility>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {
std::set<entity> members(const world &w) {
    std::set<entity> out;
    const auto g = w.group<const position, const velocity>();
    for (world::size_type i = 0; i < g.size(); ++i) out.insert(g.at(i));
    return out;
}
} // namespace

TEST_CASE("group membership follows adds in either order, removes and destroys", "[group]") {
    world w{grouped_schema()};
    auto g = w.group<position, velocity>();
    CHECK(g.empty());
    const entity a = w.create();
    const entity b = w.create();
    const entity c = w.create();
    const entity d = w.create();

    w.emplace<position>(a, 1.f, 0.f);
    CHECK_FALSE(g.contains(a));
    w.emplace<velocity>(a, 1.f, 0.f); // position first
    CHECK(g.contains(a));
    w.emplace<velocity>(b, 2.f, 0.f);
    w.emplace<health>(b, 1, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
    CHECK_FALSE(g.contains(b));
    w.emplace<position>(b, 2.f, 0.f); // velocity first
    CHECK(g.contains(b));
    w.emplace<position>(c, 3.f, 0.f); // only position
    w.emplace<velocity>(d, 4.f, 0.f); // only velocity
    CHECK(g.size() == 2);
    CHECK(members(w) == std::set<entity>{a, b});
    CHECK(group_invariants(w).empty());

    w.remove<position>(a);
    CHECK_FALSE(g.contains(a));
    CHECK(g.size() == 1);
    CHECK(group_invariants(w).empty());
    w.emplace<position>(a, 1.f, 1.f);
    CHECK(g.contains(a));
    w.remove<velocity>(b);
    CHECK_FALSE(g.contains(b));
    CHECK(group_invariants(w).empty());
    w.emplace<position>(d, 4.f, 4.f);
    CHECK(members(w) == std::set<entity>{a, d});
    w.destroy(a);
    CHECK_FALSE(g.contains(a));
    CHECK(members(w) == std::set<entity>{d});
    CHECK(group_invariants(w).empty());
    // Values stay with their owners through all the shuffling.
    CHECK(w.get<position>(c).x == 3.f);
    CHECK(w.get<position>(d).x == 4.f);
    CHECK(w.get<velocity>(d).dx == 4.f);
    CHECK(w.get<position>(b).x == 2.f);

    w.clear<velocity>();
    CHECK(g.empty());
    CHECK(group_invariants(w).empty());
}

TEST_CASE("the group prefix is packed identically in both pools", "[group]") {
    world w{grouped_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 200; ++i) {
        e.push_back(w.create());
        if (i % 3 != 0) w.emplace<position>(e.back(), float(i), 0.f);
    }
    for (int i = 199; i >= 0; --i)
        if (i % 2 == 0) w.emplace<velocity>(e[static_cast<std::size_t>(i)], float(i), 0.f);
    for (int i = 0; i < 200; i += 11) w.destroy(e[static_cast<std::size_t>(i)]);
    for (int i = 1; i < 200; i += 13) w.try_remove<velocity>(e[static_cast<std::size_t>(i)]);
    REQUIRE(group_invariants(w).empty());
    const auto length = w.group<position, velocity>().size();
    CHECK(length == w.group_lengths()[0]);
    const pool &p = w.pool_at(0);
    const pool &v = w.pool_at(1);
    std::size_t expected = 0;
    for (int i = 0; i < 200; ++i)
        if (i % 11 != 0 && i % 3 != 0 && i % 2 == 0 && !(i % 13 == 1)) ++expected;
    CHECK(length == expected);
    for (world::size_type i = 0; i < length; ++i) {
        REQUIRE(p.owners().at(i) == v.owners().at(i));
        REQUIRE(p.data_as<position>()[i].x == v.data_as<velocity>()[i].dx);
    }
}

TEST_CASE("group each walks the owned pools in lockstep", "[group]") {
    world w{grouped_schema()};
    std::map<entity, float> expected;
    for (int i = 0; i < 50; ++i) {
        const entity x = w.create();
        w.emplace<position>(x, float(i), 0.f);
        if (i % 4 != 3) {
            w.emplace<velocity>(x, float(i) * 2.f, 0.f);
            expected[x] = float(i);
        }
    }
    std::map<entity, int> visits;
    w.group<position, velocity>().each([&](entity x, position &p, velocity &v) {
        ++visits[x];
        CHECK(p.x == expected[x]);
        CHECK(v.dx == 2.f * expected[x]);
        p.y = 1.f;
    });
    CHECK(visits.size() == expected.size());
    for (const auto &[x, n] : visits) CHECK(n == 1);
    int n = 0;
    w.group<velocity, position>().each([&](velocity &, position &p) {
        CHECK(p.y == 1.f);
        ++n;
    });
    CHECK(n == static_cast<int>(expected.size()));
    // Const access on a const world.
    const world &cw = w;
    const auto cg = cw.group<const position, const velocity>();
    STATIC_REQUIRE(std::is_same_v<decltype(cg), const basic_group<const position, const velocity>>);
    int m = 0;
    cg.each([&](const position &, const velocity &) { ++m; });
    CHECK(m == n);
    // Group order and view order agree with the packed arrays.
    std::vector<entity> group_order;
    std::vector<entity> view_order;
    w.group<position, velocity>().each([&](entity x, position &, velocity &) { group_order.push_back(x); });
    w.view<velocity, position>().each([&](entity x, velocity &, position &) { view_order.push_back(x); });
    CHECK(group_order.size() == view_order.size());
}

TEST_CASE("destroying or stripping members during group iteration", "[group]") {
    world w{grouped_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 40; ++i) {
        e.push_back(w.create());
        w.emplace<position>(e.back(), float(i), 0.f);
        w.emplace<velocity>(e.back(), float(i), 0.f);
    }
    std::map<entity, int> visits;
    int k = 0;
    w.group<position, velocity>().each([&](entity x, position &p, velocity &v) {
        ++visits[x];
        CHECK(p.x == v.dx);
        switch (k++ % 3) {
        case 0: w.destroy(x); break;
        case 1: w.remove<velocity>(x); break;
        default: break;
        }
    });
    CHECK(visits.size() == 40u);
    for (const auto &[x, n] : visits) CHECK(n == 1);
    CHECK(w.group<position, velocity>().size() == 13u);
    CHECK(group_invariants(w).empty());
}

TEST_CASE("misuse: a group that was not declared", "[group][misuse]") {
    world w{grouped_schema()};
    const entity x = w.create();
    w.emplace<position>(x, 0.f, 0.f);
    const auto before = capture(w);
    REQUIRE_MISUSE((void)(w.group<position, health>()), "group<position, health>: no owning group");
    REQUIRE_MISUSE((void)(w.group<health, name_tag>()), "no owning group");
    REQUIRE_MISUSE((void)(std::as_const(w).group<const position, const health>()), "no owning group");
    world plain{standard_schema()};
    REQUIRE_MISUSE((void)(plain.group<position, velocity>()), "no owning group");
    CHECK(capture(w) == before);
}

TEST_CASE("a schema with two groups and a tag in a group", "[group]") {
    schema s = standard_schema();
    s.group<position, velocity>().group<health, frozen>();
    world w{s};
    std::vector<entity> e;
    for (int i = 0; i < 30; ++i) {
        e.push_back(w.create());
        if (i % 2) w.emplace<frozen>(e.back());
        if (i % 3) w.emplace<health>(e.back(), i, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
        if (i % 5) w.emplace<position>(e.back(), 0.f, 0.f);
        if (i % 7) w.emplace<velocity>(e.back(), 0.f, 0.f);
    }
    for (int i = 0; i < 30; i += 4) w.destroy(e[static_cast<std::size_t>(i)]);
    CHECK(group_invariants(w).empty());
    std::set<entity> seen;
    w.group<frozen, health>().each([&](entity x, health &h) {
        seen.insert(x);
        CHECK(h.hp % 3 != 0);
        CHECK(w.has<frozen>(x));
    });
    std::set<entity> expected;
    for (int i = 0; i < 30; ++i)
        if (i % 4 != 0 && i % 2 && i % 3) expected.insert(e[static_cast<std::size_t>(i)]);
    CHECK(seen == expected);
}
