// Hooks: on_add after the component is added, on_remove before it is removed (also on destroy).
#include "common/components.hpp"
#include "common/misuse.hpp"
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

TEST_CASE("misuse: an on_remove hook that removes its own component again", "[hooks][misuse]") {
    world w{standard_schema()};
    const entity a = w.create();
    w.emplace<position>(a, 1.f, 2.f);
    w.emplace<velocity>(a, 3.f, 4.f);
    int calls = 0;
    SECTION("remove<T> from T's hook, by remove and by destroy") {
        w.on_remove<position>([&](world &ww, entity e) {
            ++calls;
            ww.remove<position>(e);
        });
        REQUIRE_MISUSE(w.remove<position>(a),
                       "remove<position>: entity 0 (version 0) is already having its position removed");
        REQUIRE_MISUSE(w.destroy(a), "already having its position removed");
    }
    SECTION("try_remove<T> and clear<T> from T's hook") {
        w.on_remove<position>([&](world &ww, entity e) {
            ++calls;
            if (calls % 2 == 1) ww.try_remove<position>(e);
            else
                ww.clear<position>();
        });
        REQUIRE_MISUSE(w.remove<position>(a), "already having its position removed");
        REQUIRE_MISUSE(w.remove<position>(a), "already having its position removed");
    }
    SECTION("two hooks that remove each other's component") {
        w.on_remove<position>([&](world &ww, entity e) {
            ++calls;
            ww.try_remove<velocity>(e);
        });
        w.on_remove<velocity>([&](world &ww, entity e) {
            ++calls;
            ww.try_remove<position>(e);
        });
        REQUIRE_MISUSE(w.remove<position>(a), "already having its position removed");
        calls = 0;
        REQUIRE_MISUSE(w.destroy(a), "already having its position removed");
    }
    // Reported before anything changed: a keeps both components, and the world still works
    // once the hooks are gone (the in-progress tracking unwound with the exception).
    CHECK(calls >= 1);
    REQUIRE(w.valid(a));
    CHECK(w.get<position>(a).x == 1.f);
    CHECK(w.get<velocity>(a).dx == 3.f);
    w.on_remove<position>(nullptr);
    w.on_remove<velocity>(nullptr);
    w.destroy(a);
    CHECK(w.size<position>() == 0);
    CHECK(w.size<velocity>() == 0);
}

TEST_CASE("misuse: an on_remove hook that destroys its own entity", "[hooks][misuse]") {
    const schema s = GENERATE(standard_schema(), grouped_schema());
    world w{s};
    const entity a = w.create();
    w.emplace<position>(a, 1.f, 2.f);
    w.emplace<velocity>(a, 3.f, 4.f);
    w.emplace<health>(a, 5, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
    w.on_remove<velocity>([](world &ww, entity e) { ww.destroy(e); });
    // From remove<T>: reported on entry to destroy, before it removes anything.
    REQUIRE_MISUSE(w.remove<velocity>(a), "destroy: entity 0 (version 0) is having its velocity removed");
    // From destroy: the hook's destroy is the second one.
    REQUIRE_MISUSE(w.destroy(a), "destroy: entity 0 (version 0) is already being destroyed");
    // Through another hook: removing health removes velocity, whose hook destroys.
    w.on_remove<health>([](world &ww, entity e) { ww.remove<velocity>(e); });
    REQUIRE_MISUSE(w.remove<health>(a), "is having its velocity removed");
    REQUIRE(w.valid(a));
    CHECK(w.all_of<velocity, health>(a));
    CHECK(group_invariants(w).empty());
    w.on_remove<velocity>(nullptr);
    w.on_remove<health>(nullptr);
    w.destroy(a);
    CHECK_FALSE(w.valid(a));
    CHECK(w.size<velocity>() == 0);
}

TEST_CASE("on_remove hooks may still destroy and strip other entities", "[hooks]") {
    // A chain: destroying a ship destroys the ship it targets, whose hook strips its own
    // victim, and the tracking only refuses the entity whose removal is in progress.
    world w{grouped_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 5; ++i) {
        e.push_back(w.create());
        w.emplace<position>(e.back(), float(i), 0.f);
        w.emplace<velocity>(e.back(), float(i), 0.f);
    }
    for (std::size_t i = 0; i + 1 < e.size(); ++i) w.emplace<target>(e[i], e[i + 1]);
    w.on_remove<target>([](world &ww, entity self) {
        const entity victim = ww.get<target>(self).who;
        if (!ww.valid(victim)) return;
        if (to_index(victim) % 2 == 1) ww.destroy(victim);
        else
            ww.remove<velocity>(victim);
    });
    w.destroy(e[0]); // destroys e1, whose target hook strips e2's velocity
    CHECK_FALSE(w.valid(e[0]));
    CHECK_FALSE(w.valid(e[1]));
    REQUIRE(w.valid(e[2]));
    CHECK_FALSE(w.has<velocity>(e[2]));
    CHECK(w.has<target>(e[2]));
    w.remove<target>(e[2]); // destroys e3 ... which strips e4
    CHECK_FALSE(w.valid(e[3]));
    CHECK_FALSE(w.has<velocity>(e[4]));
    CHECK(group_invariants(w).empty());
    // A hook adding components to an entity that is only losing a component (not destroyed).
    w.on_remove<position>([](world &ww, entity self) { ww.emplace<frozen>(self); });
    w.remove<position>(e[4]);
    CHECK(w.has<frozen>(e[4]));
}

TEST_CASE("misuse: an on_remove hook that adds components to an entity being destroyed", "[hooks][misuse]") {
    world w{grouped_schema()};
    const entity a = w.create();
    w.emplace<position>(a, 1.f, 2.f);
    w.emplace<health>(a, 5, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
    command_buffer cb{w};
    SECTION("a pool destroy has not reached yet") {
        w.on_remove<position>([](world &ww, entity e) { ww.emplace<velocity>(e, 0.f, 0.f); });
        REQUIRE_MISUSE(w.destroy(a), "emplace<velocity>: entity 0 (version 0) is being destroyed");
    }
    SECTION("a pool destroy has already passed") {
        w.on_remove<health>([](world &ww, entity e) { ww.emplace_or_replace<position>(e, 0.f, 0.f); });
        w.remove<position>(a);
        REQUIRE_MISUSE(w.destroy(a), "emplace<position>: entity 0 (version 0) is being destroyed");
        w.emplace<position>(a, 1.f, 2.f);
    }
    SECTION("a tag, through a command buffer applied in the hook") {
        w.on_remove<health>([&](world &, entity e) {
            cb.emplace<frozen>(e);
            cb.apply();
        });
        REQUIRE_MISUSE(w.destroy(a), "emplace<frozen>: entity 0 (version 0) is being destroyed");
        cb.clear();
    }
    SECTION("from the hook of another entity destroyed meanwhile") {
        const entity b = w.create();
        w.emplace<target>(a, b);
        w.emplace<target>(b, null_entity);
        w.on_remove<target>([a](world &ww, entity self) {
            const entity other = ww.get<target>(self).who;
            if (ww.valid(other)) ww.destroy(other);
            else
                ww.emplace<marked>(a); // run by destroy(b), inside destroy(a)
        });
        REQUIRE_MISUSE(w.destroy(a), "emplace<marked>: entity 0 (version 0) is being destroyed");
        w.on_remove<target>(nullptr);
        w.destroy(b);
    }
    // Nothing was added to a, and a destroy without the hooks leaves no component behind.
    REQUIRE(w.valid(a));
    CHECK_FALSE(w.any_of<velocity, frozen, marked>(a));
    w.on_remove<position>(nullptr);
    w.on_remove<health>(nullptr);
    w.destroy(a);
    for (std::size_t id = 0; id < w.pool_count(); ++id) CHECK(w.pool_at(id).empty());
}
