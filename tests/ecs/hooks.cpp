// Hooks: on_add after the component is added, on_remove before it is removed (also on destroy).
#include "common/components.hpp"
#include "ecs/helpers.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace retcon;
using namespace retcon::test;

TEST_CASE("on_add runs after the component is in place", "[hooks]") {
    world w{standard_schema()};
    std::vector<entity> seen;
    w.on_add<position>([&](world &ww, entity e) {
        REQUIRE(ww.has<position>(e));
        CHECK(ww.get<position>(e).x == 7.f);
        seen.push_back(e);
    });
    const entity a = w.create();
    w.emplace<position>(a, 7.f, 0.f);
    CHECK(seen == std::vector<entity>{a});
    w.replace<position>(a, 1.f, 1.f); // not an add
    w.emplace_or_replace<position>(a, 7.f, 1.f);
    CHECK(seen.size() == 1);
    w.emplace<velocity>(a, 0.f, 0.f); // other pools have no hook
    CHECK(seen.size() == 1);
    const entity b = w.create();
    w.emplace_or_replace<position>(b, 7.f, 2.f);
    CHECK(seen == std::vector<entity>{a, b});
}

TEST_CASE("on_remove runs before removal, with the component still readable", "[hooks]") {
    world w{standard_schema()};
    std::vector<float> values;
    w.on_remove<position>([&](world &ww, entity e) {
        REQUIRE(ww.valid(e));
        REQUIRE(ww.has<position>(e));
        values.push_back(ww.get<position>(e).x);
    });
    const entity a = w.create();
    const entity b = w.create();
    const entity c = w.create();
    const entity d = w.create();
    w.emplace<position>(a, 1.f, 0.f);
    w.emplace<position>(b, 2.f, 0.f);
    w.emplace<position>(c, 3.f, 0.f);
    w.emplace<position>(d, 4.f, 0.f);
    w.remove<position>(a);
    CHECK(w.try_remove<position>(b));
    CHECK_FALSE(w.try_remove<position>(b));
    w.destroy(c);
    w.destroy(b); // had no position any more
    CHECK(values == std::vector<float>{1.f, 2.f, 3.f});
    w.clear<position>();
    CHECK(values == std::vector<float>{1.f, 2.f, 3.f, 4.f});
}

TEST_CASE("hooks on tags, on clear() and replaced hooks", "[hooks]") {
    world w{standard_schema()};
    int adds = 0;
    int removes = 0;
    w.on_add<frozen>([&](world &, entity) { ++adds; });
    w.on_remove<frozen>([&](world &ww, entity e) {
        CHECK(ww.has<frozen>(e));
        ++removes;
    });
    for (int i = 0; i < 5; ++i) w.emplace<frozen>(w.create());
    CHECK(adds == 5);
    w.clear();
    CHECK(removes == 5);
    w.on_add<frozen>([&](world &, entity) { adds += 100; });
    w.emplace<frozen>(w.create());
    CHECK(adds == 105);
    w.on_add<frozen>(nullptr);
    w.emplace<frozen>(w.create());
    CHECK(adds == 105);
}

TEST_CASE("hooks may change world state", "[hooks]") {
    world w{grouped_schema()};
    // Adding a position gives the entity a velocity too (joins the group); removing the
    // position records the event in a resource.
    w.set_resource<game_clock>(0u, 0u);
    w.on_add<position>([](world &ww, entity e) {
        if (!ww.has<velocity>(e)) ww.emplace<velocity>(e, 1.f, 1.f);
    });
    w.on_remove<position>([](world &ww, entity) { ++ww.resource<game_clock>().frame; });
    std::vector<entity> e;
    for (int i = 0; i < 10; ++i) {
        e.push_back(w.create());
        w.emplace<position>(e.back(), float(i), 0.f);
    }
    CHECK(w.group<position, velocity>().size() == 10);
    CHECK(group_invariants(w).empty());
    w.destroy(e[3]);
    w.remove<position>(e[4]);
    CHECK(w.resource<game_clock>().frame == 2u);
    CHECK(w.group<position, velocity>().size() == 8);
    CHECK(group_invariants(w).empty());
    for (int i = 0; i < 10; ++i)
        if (i != 3 && i != 4) CHECK(w.get<position>(e[static_cast<std::size_t>(i)]).x == float(i));
}

TEST_CASE("an on_remove hook that removes another group-owned component", "[hooks]") {
    world w{grouped_schema()};
    w.on_remove<position>([](world &ww, entity e) { ww.try_remove<velocity>(e); });
    std::vector<entity> e;
    for (int i = 0; i < 6; ++i) {
        e.push_back(w.create());
        w.emplace<position>(e.back(), float(i), 0.f);
        w.emplace<velocity>(e.back(), float(i), 0.f);
    }
    w.remove<position>(e[1]);
    w.destroy(e[4]);
    CHECK_FALSE(w.has<velocity>(e[1]));
    CHECK(w.group<position, velocity>().size() == 4);
    CHECK(group_invariants(w).empty());
    for (int i : {0, 2, 3, 5}) CHECK(w.get<velocity>(e[static_cast<std::size_t>(i)]).dx == float(i));
}

TEST_CASE("on_remove on destroy sees the whole entity", "[hooks]") {
    world w{standard_schema()};
    std::vector<std::string> log;
    w.on_remove<position>([&](world &ww, entity e) {
        log.push_back("position");
        CHECK(ww.valid(e));
    });
    w.on_remove<health>([&](world &ww, entity e) {
        log.push_back("health");
        CHECK(ww.valid(e));
    });
    const entity a = w.create();
    w.emplace<health>(a, 1, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
    w.emplace<position>(a, 0.f, 0.f);
    w.destroy(a);
    // Pools are emptied in declaration (id) order.
    CHECK(log == std::vector<std::string>{"position", "health"});
}
