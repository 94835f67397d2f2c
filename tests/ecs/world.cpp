// world: components on entities, misuse reporting, state validation and assignment.
#include "common/components.hpp"
#include "common/misuse.hpp"
#include "ecs/helpers.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <map>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace world_test {
struct undeclared {
    std::uint32_t v;
};
RETCON_COMPONENT(undeclared, v);
struct undeclared_tag {};
RETCON_TAG(undeclared_tag);
} // namespace world_test

using namespace world_test;

TEST_CASE("emplace, get, has, all_of, any_of", "[world]") {
    world w{standard_schema()};
    const entity e = w.create();
    position &p = w.emplace<position>(e, 1.f, 2.f);
    CHECK(p.x == 1.f);
    CHECK(p.y == 2.f);
    p.x = 5.f;
    CHECK(w.get<position>(e).x == 5.f);
    CHECK(w.has<position>(e));
    CHECK_FALSE(w.has<velocity>(e));
    w.emplace<velocity>(e, 3.f, 4.f);
    w.emplace<frozen>(e);
    CHECK(w.all_of<position, velocity>(e));
    CHECK(w.all_of<position, velocity, frozen>(e));
    CHECK_FALSE(w.all_of<position, health>(e));
    CHECK(w.any_of<health, frozen>(e));
    CHECK_FALSE(w.any_of<health, marked>(e));
    CHECK(w.size<position>() == 1);
    CHECK(w.size<frozen>() == 1);

    auto [pp, vv] = w.get<position, velocity>(e);
    STATIC_REQUIRE(std::is_same_v<decltype(w.get<position, velocity>(e)), std::tuple<position &, velocity &>>);
    vv.dx = 9.f;
    CHECK(w.get<velocity>(e).dx == 9.f);
    CHECK(&pp == &w.get<position>(e));

    const world &cw = w;
    STATIC_REQUIRE(std::is_same_v<decltype(cw.get<position>(e)), const position &>);
    STATIC_REQUIRE(
        std::is_same_v<decltype(cw.get<position, velocity>(e)), std::tuple<const position &, const velocity &>>);
    CHECK(cw.get<position>(e).x == 5.f);
    auto [cp, cv] = cw.get<position, velocity>(e);
    CHECK(cp.y == 2.f);
    CHECK(cv.dy == 4.f);

    const entity other = w.create();
    CHECK_FALSE(w.any_of<position, velocity, frozen>(other));
    w.destroy(other);
    CHECK_FALSE(w.all_of<position>(other));
}

TEST_CASE("try_get and get_unchecked", "[world]") {
    world w{standard_schema()};
    const entity e = w.create();
    CHECK(w.try_get<position>(e) == nullptr);
    w.emplace<position>(e, 1.f, 2.f);
    REQUIRE(w.try_get<position>(e) != nullptr);
    CHECK(w.try_get<position>(e)->y == 2.f);
    const world &cw = w;
    STATIC_REQUIRE(std::is_same_v<decltype(cw.try_get<position>(e)), const position *>);
    CHECK(cw.try_get<position>(e) == w.try_get<position>(e));
    CHECK(&w.get_unchecked<position>(e) == &w.get<position>(e));
    w.destroy(e);
    CHECK(w.try_get<position>(e) == nullptr);
    const entity reused = w.create();
    CHECK(w.try_get<position>(e) == nullptr);
    CHECK(w.try_get<position>(reused) == nullptr);
}

TEST_CASE("replace and emplace_or_replace", "[world]") {
    world w{standard_schema()};
    const entity e = w.create();
    w.emplace<health>(e, 10, std::uint16_t{1}, std::uint8_t{2}, std::uint8_t{0});
    health &h = w.replace<health>(e, 20, std::uint16_t{3}, std::uint8_t{4}, std::uint8_t{0});
    CHECK(&h == &w.get<health>(e));
    CHECK(w.get<health>(e).hp == 20);
    CHECK(w.get<health>(e).team == 4);

    const entity f = w.create();
    position &a = w.emplace_or_replace<position>(f, 1.f, 1.f);
    CHECK(a.x == 1.f);
    position &b = w.emplace_or_replace<position>(f, 2.f, 2.f);
    CHECK(&a == &b);
    CHECK(w.get<position>(f).x == 2.f);
    CHECK(w.size<position>() == 1);

    w.emplace_or_replace<frozen>(f);
    w.emplace_or_replace<frozen>(f);
    CHECK(w.size<frozen>() == 1);
    CHECK(w.has<frozen>(f));

    // Replacing with a value read from the same entity.
    w.replace<position>(f, w.get<position>(f).y + 1.f, 0.f);
    CHECK(w.get<position>(f).x == 3.f);
}

TEST_CASE("remove and try_remove", "[world]") {
    world w{standard_schema()};
    const entity e = w.create();
    w.emplace<position>(e, 1.f, 2.f);
    w.emplace<frozen>(e);
    w.remove<position>(e);
    CHECK_FALSE(w.has<position>(e));
    CHECK(w.size<position>() == 0);
    CHECK(w.try_remove<frozen>(e));
    CHECK_FALSE(w.try_remove<frozen>(e));
    CHECK_FALSE(w.try_remove<velocity>(e));
    CHECK(w.valid(e));
    // A stale handle is never found.
    w.emplace<position>(e, 0.f, 0.f);
    w.destroy(e);
    const entity again = w.create();
    w.emplace<position>(again, 0.f, 0.f);
    CHECK_FALSE(w.try_remove<position>(e));
    CHECK(w.has<position>(again));
}

TEST_CASE("swap-and-pop keeps every value attached to its entity", "[world]") {
    world w{standard_schema()};
    std::map<entity, health> expected;
    std::vector<entity> all;
    for (int i = 0; i < 64; ++i) {
        const entity e = w.create();
        all.push_back(e);
        const health h{i * 7, static_cast<std::uint16_t>(i), static_cast<std::uint8_t>(i % 3), 0};
        w.emplace<health>(e, h);
        expected[e] = h;
    }
    for (int i = 0; i < 64; i += 3) {
        w.remove<health>(all[static_cast<std::size_t>(i)]);
        expected.erase(all[static_cast<std::size_t>(i)]);
    }
    for (int i = 1; i < 64; i += 5) {
        if (expected.count(all[static_cast<std::size_t>(i)]) == 0) continue;
        w.destroy(all[static_cast<std::size_t>(i)]);
        expected.erase(all[static_cast<std::size_t>(i)]);
    }
    REQUIRE(w.size<health>() == expected.size());
    for (const auto &[e, h] : expected) {
        const health &got = w.get<health>(e);
        CHECK(got.hp == h.hp);
        CHECK(got.armor == h.armor);
        CHECK(got.team == h.team);
        CHECK(w.entity_of(got) == e);
    }
}

TEST_CASE("emplace copying a component of the same pool while it grows", "[world]") {
    // The argument refers into the pool the emplace appends to; growing must not invalidate it
    // before the copy is made.
    world w{standard_schema()};
    const entity first = w.create();
    w.emplace<position>(first, 3.f, 4.f);
    for (int i = 0; i < 300; ++i) {
        const entity e = w.create();
        const position &src = w.get<position>(first);
        const position &copy = w.emplace<position>(e, src);
        REQUIRE(copy.x == 3.f);
        REQUIRE(copy.y == 4.f);
    }
}

TEST_CASE("entity_of maps a component back to its owner", "[world]") {
    world w{standard_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 10; ++i) {
        e.push_back(w.create());
        w.emplace<position>(e.back(), float(i), 0.f);
    }
    for (const entity x : e) CHECK(w.entity_of(w.get<position>(x)) == x);
    const world &cw = w;
    CHECK(cw.entity_of(cw.get<position>(e[4])) == e[4]);
}

TEST_CASE("size and clear<T>", "[world]") {
    world w{standard_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 10; ++i) {
        e.push_back(w.create());
        w.emplace<position>(e.back(), float(i), 0.f);
        if (i % 2) w.emplace<frozen>(e.back());
        if (i % 3 == 0) w.emplace<velocity>(e.back(), 1.f, 1.f);
    }
    CHECK(w.size<position>() == 10);
    CHECK(w.size<frozen>() == 5);
    w.clear<position>();
    CHECK(w.size<position>() == 0);
    CHECK(w.size<frozen>() == 5);
    CHECK(w.size<velocity>() == 4);
    for (const entity x : e) {
        CHECK(w.valid(x));
        CHECK_FALSE(w.has<position>(x));
    }
    w.clear<frozen>();
    CHECK(w.size<frozen>() == 0);
    CHECK(w.alive() == 10);
}

TEST_CASE("tags carry no payload but filter", "[world]") {
    world w{standard_schema()};
    const entity a = w.create();
    const entity b = w.create();
    w.emplace<frozen>(a);
    w.emplace<marked>(b);
    STATIC_REQUIRE(std::is_void_v<decltype(w.emplace<frozen>(a))>);
    CHECK(w.has<frozen>(a));
    CHECK_FALSE(w.has<frozen>(b));
    CHECK(w.pool_at(w.get_schema().find_component("frozen")).payload_bytes() == 0u);
    w.remove<frozen>(a);
    CHECK_FALSE(w.has<frozen>(a));
}

TEST_CASE("fixed-capacity values in components", "[world]") {
    world w{standard_schema()};
    const entity e = w.create();
    w.emplace<name_tag>(e, fixed_string<16>{"ship"});
    inventory inv{};
    inv.items.push_back(3);
    inv.items.push_back(5);
    w.emplace<inventory>(e, inv);
    w.emplace<target>(e, e);
    CHECK(w.get<name_tag>(e).text == std::string_view{"ship"});
    CHECK(w.get<inventory>(e).items.size() == 2);
    CHECK(w.get<inventory>(e).items[1] == 5);
    CHECK(w.get<target>(e).who == e);
}

TEST_CASE("misuse: stale handles", "[world][misuse]") {
    world w{standard_schema()};
    const entity keep = w.create();
    w.emplace<position>(keep, 1.f, 1.f);
    const entity gone = w.create();
    w.emplace<position>(gone, 2.f, 2.f);
    w.destroy(gone);
    const entity reused = w.create(); // same index, newer version
    w.emplace<position>(reused, 3.f, 3.f);
    const auto before = capture(w);

    REQUIRE_MISUSE((void)w.get<position>(gone), "stale entity handle");
    REQUIRE_MISUSE((void)w.get<position>(gone), "get<position>");
    REQUIRE_MISUSE((void)std::as_const(w).get<position>(gone), "stale");
    REQUIRE_MISUSE(w.emplace<velocity>(gone, 0.f, 0.f), "emplace<velocity>: stale entity handle");
    REQUIRE_MISUSE(w.emplace<frozen>(gone), "stale");
    REQUIRE_MISUSE(w.replace<position>(gone, 0.f, 0.f), "stale");
    REQUIRE_MISUSE(w.remove<position>(gone), "remove<position>: stale");
    REQUIRE_MISUSE(w.destroy(gone), "destroy: stale");
    REQUIRE_MISUSE(w.emplace_or_replace<position>(gone, 0.f, 0.f), "stale");
    REQUIRE_MISUSE((void)w.get<position>(null_entity), "null entity handle");
    REQUIRE_MISUSE(w.emplace<position>(null_entity, 0.f, 0.f), "null entity handle");
    REQUIRE_MISUSE((void)w.get<position>(entity_traits::construct(99, 0)), "never created");
    CHECK(capture(w) == before);
    CHECK(w.get<position>(reused).x == 3.f);
}

TEST_CASE("misuse: missing and duplicate components", "[world][misuse]") {
    world w{standard_schema()};
    const entity e = w.create();
    w.emplace<position>(e, 1.f, 1.f);
    w.emplace<frozen>(e);
    const auto before = capture(w);
    REQUIRE_MISUSE((void)w.get<velocity>(e), "get<velocity>: entity 0 (version 0) has no velocity");
    REQUIRE_MISUSE((void)(w.get<position, velocity>(e)), "has no velocity");
    REQUIRE_MISUSE(w.replace<velocity>(e, 0.f, 0.f), "has no velocity");
    REQUIRE_MISUSE(w.remove<velocity>(e), "remove<velocity>");
    REQUIRE_MISUSE(w.emplace<position>(e, 5.f, 5.f), "already has one");
    REQUIRE_MISUSE(w.emplace<frozen>(e), "already has one");
    CHECK(capture(w) == before);
    CHECK(w.get<position>(e).x == 1.f);

    SECTION("double remove") {
        w.remove<position>(e);
        const auto after = capture(w);
        REQUIRE_MISUSE(w.remove<position>(e), "has no position");
        CHECK(capture(w) == after);
    }
}

TEST_CASE("misuse: undeclared types", "[world][misuse]") {
    world w{standard_schema()};
    const entity e = w.create();
    w.emplace<position>(e, 1.f, 1.f);
    const auto before = capture(w);
    REQUIRE_MISUSE(w.emplace<undeclared>(e, 1u), "undeclared is not a component declared");
    REQUIRE_MISUSE((void)w.get<undeclared>(e), "undeclared is not a component");
    REQUIRE_MISUSE((void)w.try_get<undeclared>(e), "not a component");
    REQUIRE_MISUSE((void)w.has<undeclared_tag>(e), "undeclared_tag is not a component");
    REQUIRE_MISUSE(w.remove<undeclared>(e), "not a component");
    REQUIRE_MISUSE((void)w.size<undeclared>(), "not a component");
    REQUIRE_MISUSE((void)(w.view<position, undeclared>()), "not a component");
    REQUIRE_MISUSE((void)w.view<position>(exclude<undeclared_tag>), "not a component");
    REQUIRE_MISUSE((void)std::as_const(w).view<const undeclared>(), "not a component");
    REQUIRE_MISUSE(w.set_resource<undeclared>(1u), "undeclared is not a resource");
    REQUIRE_MISUSE((void)w.resource<position>(), "position is not a resource");
    CHECK(capture(w) == before);
}

TEST_CASE("misuse: entity_of with a foreign reference", "[world][misuse]") {
    world w{standard_schema()};
    const entity e = w.create();
    w.emplace<position>(e, 1.f, 1.f);
    const position local{1.f, 1.f};
    REQUIRE_MISUSE((void)w.entity_of(local), "does not point into this world's position pool");
    world other{standard_schema()};
    const entity o = other.create();
    other.emplace<position>(o, 0.f, 0.f);
    REQUIRE_MISUSE((void)w.entity_of(other.get<position>(o)), "entity_of<position>");
    // A pointer one past the last live element is not an element either.
    w.emplace<position>(w.create(), 0.f, 0.f);
    const position *past = &w.get<position>(e) + 2;
    REQUIRE_MISUSE((void)w.entity_of(*past), "does not point");
}

TEST_CASE("a world can be moved", "[world]") {
    world w{grouped_schema()};
    const entity e = w.create();
    w.emplace<position>(e, 1.f, 2.f);
    w.emplace<velocity>(e, 3.f, 4.f);
    w.set_resource<game_clock>(7u, 60u);
    const auto before = capture(w);
    world m{std::move(w)};
    CHECK(capture(m) == before);
    CHECK(m.get<position>(e).y == 2.f);
    CHECK(m.group<position, velocity>().size() == 1);
    CHECK(m.resource<game_clock>().frame == 7u);
    world n{standard_schema()};
    n = std::move(m);
    CHECK(capture(n) == before);
    CHECK(n.group<position, velocity>().contains(e));
}

// ---------------------------------------------------------------- validate_state / assign_state

namespace {
/// A grouped world with history: free list entries, a retired-free mix, groups, resources.
world busy_world() {
    world w{grouped_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 40; ++i) {
        e.push_back(w.create());
        w.emplace<position>(e.back(), float(i), float(-i));
        if (i % 2 == 0) w.emplace<velocity>(e.back(), 1.f, float(i));
        if (i % 3 == 0) w.emplace<health>(e.back(), i, std::uint16_t{1}, std::uint8_t{2}, std::uint8_t{3});
        if (i % 5 == 0) w.emplace<frozen>(e.back());
    }
    for (int i = 0; i < 40; i += 7) w.destroy(e[static_cast<std::size_t>(i)]);
    for (int i = 2; i < 40; i += 9) w.remove<position>(e[static_cast<std::size_t>(i)]);
    w.set_resource<game_clock>(42u, 60u);
    return w;
}

void same_ops(world &w, int salt) {
    std::vector<entity> made;
    for (int i = 0; i < 10; ++i) {
        made.push_back(w.create());
        w.emplace<velocity>(made.back(), float(salt), float(i));
        if (i % 2) w.emplace<position>(made.back(), float(i), 0.f);
    }
    w.destroy(made[3]);
    w.remove<velocity>(made[5]);
    w.view<position>().each([](position &p) { p.x += 1.f; });
    w.resource<game_clock>().frame += 1u;
}
} // namespace

TEST_CASE("validate_state accepts a real world's state", "[world][state]") {
    const world w = busy_world();
    CHECK(check_state(w, capture(w)).ok());
    const world empty{grouped_schema()};
    CHECK(check_state(empty, capture(empty)).ok());
    // Another world of the same schema judges the same state.
    CHECK(check_state(empty, capture(w)).ok());
}

TEST_CASE("validate_state rejects broken free lists", "[world][state]") {
    world w{grouped_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 6; ++i) e.push_back(w.create());
    w.destroy(e[1]);
    w.destroy(e[4]);
    w.destroy(e[2]); // free list 1 -> 4 -> 2
    const auto good = capture(w);
    REQUIRE(check_state(w, good).ok());
    REQUIRE(good.free.head == 1u);
    REQUIRE(good.free.tail == 2u);

    SECTION("a cycle") {
        auto bad = good;
        bad.table[2] = entity_traits::construct(1, to_version(bad.table[2])); // tail links back to head
        CHECK_THAT(validate(w, bad), Catch::Contains("cycle"));
        CHECK(check_state(w, bad).code() == errc::corrupt);
        CHECK(check_state(w, bad).err().offset == error::no_offset); // the regions come already split
    }
    SECTION("a self loop is not mistaken for a live entity") {
        auto bad = good;
        bad.table[4] = entity_traits::construct(4, 0);
        CHECK_FALSE(check_state(w, bad).ok());
    }
    SECTION("an out-of-range link") {
        auto bad = good;
        bad.table[4] = entity_traits::construct(100, to_version(bad.table[4]));
        CHECK_THAT(validate(w, bad), Catch::Contains("out of range"));
    }
    SECTION("a link into a live slot") {
        auto bad = good;
        bad.table[4] = entity_traits::construct(3, to_version(bad.table[4]));
        CHECK_THAT(validate(w, bad), Catch::Contains("live"));
    }
    SECTION("a head out of range") {
        auto bad = good;
        bad.free.head = 1000;
        CHECK_THAT(validate(w, bad), Catch::Contains("out of range"));
    }
    SECTION("a wrong tail") {
        auto bad = good;
        bad.free.tail = 4;
        CHECK_THAT(validate(w, bad), Catch::Contains("tail"));
    }
    SECTION("an unlinked free slot") {
        auto bad = good;
        bad.free.tail = 4;
        bad.table[4] = entity_traits::construct(entity_traits::index_mask, to_version(bad.table[4]));
        CHECK_THAT(validate(w, bad), Catch::Contains("neither live, free nor retired"));
    }
    SECTION("a wrong live count") {
        auto bad = good;
        bad.free.alive += 1;
        CHECK_THAT(validate(w, bad), Catch::Contains("live entities"));
    }
    SECTION("a non-zero reserved field") {
        auto bad = good;
        bad.free.reserved = 1;
        CHECK_THAT(validate(w, bad), Catch::Contains("reserved"));
    }
}

TEST_CASE("validate_state rejects bad pools and groups", "[world][state]") {
    const world w = busy_world();
    const auto good = capture(w);
    REQUIRE(check_state(w, good).ok());
    const auto pos_id = w.get_schema().find_component("position");
    const auto vel_id = w.get_schema().find_component("velocity");
    const auto health_id = w.get_schema().find_component("health");
    REQUIRE(good.groups[0] >= 3u);

    SECTION("an owner that is not live (stale version)") {
        auto bad = good;
        const entity e = bad.owners[health_id][0];
        bad.owners[health_id][0] = entity_traits::construct(to_index(e), to_version(e) + 1u);
        CHECK_THAT(validate(w, bad), Catch::Contains("'health' holds an entity that is not live"));
    }
    SECTION("an owner that is free") {
        auto bad = good;
        bad.owners[health_id][0] = entity_traits::construct(good.free.head, to_version(good.table[good.free.head]));
        CHECK_THAT(validate(w, bad), Catch::Contains("not live"));
    }
    SECTION("an owner out of range") {
        auto bad = good;
        bad.owners[health_id][0] = entity_traits::construct(5000, 0);
        CHECK_THAT(validate(w, bad), Catch::Contains("not live"));
    }
    SECTION("an owner twice") {
        auto bad = good;
        bad.owners[health_id][1] = bad.owners[health_id][0];
        CHECK_THAT(validate(w, bad), Catch::Contains("'health' holds an entity twice"));
    }
    SECTION("a group longer than its pools") {
        auto bad = good;
        bad.groups[0] = static_cast<world::size_type>(bad.owners[vel_id].size() + 1u);
        CHECK_THAT(validate(w, bad), Catch::Contains("longer"));
    }
    SECTION("group pools out of order") {
        auto bad = good;
        std::swap(bad.owners[pos_id][0], bad.owners[pos_id][1]);
        CHECK_THAT(validate(w, bad), Catch::Contains("not packed in the same order"));
    }
    SECTION("wrong region counts") {
        auto bad = good;
        bad.owners.pop_back();
        CHECK_THAT(validate(w, bad), Catch::Contains("pools"));
        CHECK(check_state(w, bad).code() == errc::schema_mismatch);
        bad = good;
        bad.groups.push_back(0);
        CHECK_THAT(validate(w, bad), Catch::Contains("group count"));
        CHECK(check_state(w, bad).code() == errc::schema_mismatch);
        bad = good;
        bad.resources.push_back(std::byte{0});
        CHECK_THAT(validate(w, bad), Catch::Contains("resource block"));
        CHECK(check_state(w, bad).code() == errc::schema_mismatch);
    }
    SECTION("a live slot with a saturated version") {
        auto bad = good;
        const entity e = bad.owners[health_id][0];
        bad.table[to_index(e)] = entity_traits::construct(to_index(e), entity_traits::version_mask);
        CHECK_FALSE(check_state(w, bad).ok());
    }
}

TEST_CASE("validate_state rejects an incomplete group and bad resource presence bytes", "[world][state]") {
    const world w = busy_world();
    const auto good = capture(w);
    REQUIRE(check_state(w, good).ok());
    const auto pos_id = w.get_schema().find_component("position");
    const auto vel_id = w.get_schema().find_component("velocity");
    REQUIRE(good.groups[0] >= 3u);
    // Entities past the packed prefix that lack a velocity are fine (busy_world has them).
    REQUIRE(good.owners[pos_id].size() > good.groups[0]);

    SECTION("the group's length leaves its last complete entity out") {
        auto bad = good;
        --bad.groups[0];
        CHECK_THAT(validate(w, bad), Catch::Contains("group 0 is incomplete") && Catch::Contains("every owned type"));
        CHECK(check_state(w, bad).code() == errc::corrupt);
    }
    SECTION("a complete entity past the prefix, the prefix itself consistent") {
        // Move the last packed entity behind the others in both pools and shorten the group:
        // the prefix still matches, but that entity holds position and velocity.
        auto bad = good;
        const std::size_t last = bad.groups[0] - 1u;
        for (auto id : {pos_id, vel_id}) {
            auto &o = bad.owners[id];
            const entity moved = o[last];
            o.erase(o.begin() + static_cast<std::ptrdiff_t>(last));
            o.push_back(moved);
        }
        --bad.groups[0];
        CHECK_THAT(validate(w, bad), Catch::Contains("group 0 is incomplete"));
    }
    SECTION("a resource presence byte other than 0 or 1") {
        auto bad = good;
        REQUIRE(bad.resources[1] == std::byte{1}); // game_clock is set
        bad.resources[1] = std::byte{2};
        CHECK_THAT(validate(w, bad), Catch::Contains("presence byte of resource 'game_clock' is 2, not 0 or 1"));
        CHECK(check_state(w, bad).code() == errc::corrupt);
        bad = good;
        REQUIRE(bad.resources[0] == std::byte{0}); // rng_state is not
        bad.resources[0] = std::byte{0xFF};
        CHECK_THAT(validate(w, bad), Catch::Contains("'rng_state' is 255"));
    }
}

TEST_CASE("assign_state reproduces a world, and both evolve identically", "[world][state]") {
    world src = busy_world();
    const auto state = capture(src);
    world dst{grouped_schema()};
    // Give dst a different history first: assign_state must overwrite all of it.
    for (int i = 0; i < 100; ++i)
        dst.emplace<health>(dst.create(), i, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
    dst.set_resource<rng_state>(std::uint64_t{99});
    assign(dst, state);
    CHECK(capture(dst) == state);
    CHECK(dst.alive() == src.alive());
    CHECK(group_invariants(dst).empty());
    CHECK_FALSE(dst.has_resource<rng_state>());
    // Lookups work (the sparse index was rebuilt) and handles agree.
    src.each([&](entity e) {
        REQUIRE(dst.valid(e));
        REQUIRE(dst.all_of<position>(e) == src.all_of<position>(e));
        if (src.all_of<position>(e)) REQUIRE(dst.get<position>(e).x == src.get<position>(e).x);
    });
    for (int round = 0; round < 20; ++round) {
        same_ops(src, round);
        same_ops(dst, round);
        REQUIRE(capture(dst) == capture(src));
        REQUIRE(group_invariants(dst).empty());
    }
    // And back again: the earlier state restores over the evolved world.
    assign(src, state);
    CHECK(capture(src) == state);
}

// ---------------------------------------------------------------- many component types

namespace world_test {
template<int N>
struct many {
    std::uint32_t v;
};
constexpr std::array<char, 8> many_name_of(int n) {
    return {'m',
            'a',
            'n',
            'y',
            static_cast<char>('0' + n / 100),
            static_cast<char>('0' + n / 10 % 10),
            static_cast<char>('0' + n % 10),
            '\0'};
}
template<int N>
inline constexpr std::array<char, 8> many_name = many_name_of(N);
// A family of declared types (the registration RETCON_COMPONENT writes, for a template).
template<int N>
consteval auto retcon_describe(internal::type_tag<many<N>>) {
    return internal::describe<many<N>>(std::string_view{many_name<N>.data(), 7},
                                       internal::make_field<std::uint32_t>("v", 0));
}
constexpr int many_count = 150; // three 64-bit words of pool bits
} // namespace world_test

TEST_CASE("destroy and clear reach pools beyond the first 64 types", "[world]") {
    schema s;
    [&]<int... I>(std::integer_sequence<int, I...>) { (s.component<many<I>>(), ...); }
    (std::make_integer_sequence<int, many_count>{});
    s.component<position>();
    REQUIRE(s.components().size() == many_count + 1u);
    CHECK(s.component_info(149).name == "many149");
    world w{s};
    auto give = [&](entity e, auto... n) {
        (w.emplace<many<decltype(n)::value>>(e, static_cast<std::uint32_t>(decltype(n)::value)), ...);
    };
    using std::integral_constant;
    const entity a = w.create();
    const entity b = w.create();
    give(a, integral_constant<int, 0>{}, integral_constant<int, 63>{}, integral_constant<int, 64>{},
         integral_constant<int, 127>{}, integral_constant<int, 128>{}, integral_constant<int, 149>{});
    give(b, integral_constant<int, 64>{}, integral_constant<int, 149>{});
    w.emplace<position>(a, 0.f, 0.f);
    CHECK(w.get<many<128>>(a).v == 128u);
    w.destroy(a);
    CHECK(w.size<many<0>>() == 0);
    CHECK(w.size<many<63>>() == 0);
    CHECK(w.size<many<64>>() == 1);
    CHECK(w.size<many<127>>() == 0);
    CHECK(w.size<many<128>>() == 0);
    CHECK(w.size<many<149>>() == 1);
    CHECK(w.size<position>() == 0);
    // Through a state round trip (which rebuilds the pool bits) and again.
    const auto state = capture(w);
    world twin{s};
    assign(twin, state);
    twin.destroy(b);
    CHECK(twin.size<many<64>>() == 0);
    CHECK(twin.size<many<149>>() == 0);
    for (std::size_t id = 0; id < twin.pool_count(); ++id) CHECK(twin.pool_at(id).empty());
    // Emptying a pool by remove, then destroy still finds the other pools of the same word.
    const entity c = w.create();
    give(c, integral_constant<int, 65>{}, integral_constant<int, 66>{});
    w.remove<many<64>>(b);
    w.destroy(b);
    w.destroy(c);
    for (std::size_t id = 0; id < w.pool_count(); ++id) CHECK(w.pool_at(id).empty());
}

// ------------------------------------------------------------------ by id (type-erased)

TEST_CASE("components and resources by id behave like the typed calls", "[world][by_id]") {
    schema s;
    s.component<position>()
        .component<velocity>()
        .component<frozen>()
        .resource<game_clock>()
        .group<position, velocity>();
    world w{s};
    const auto a = w.create();
    const auto b = w.create();
    const position pa{1.f, 2.f};
    std::byte *stored = w.emplace(a, 0, std::as_bytes(std::span{&pa, 1}));
    REQUIRE(stored != nullptr);
    CHECK(w.get<position>(a).y == 2.f); // the typed view sees the bytes
    CHECK(w.has(a, 0));
    CHECK_FALSE(w.has(b, 0));
    CHECK(w.try_get(b, 0) == nullptr);
    CHECK(w.emplace(a, 2, {}) == nullptr); // a tag
    CHECK(w.all_of<frozen>(a));
    const velocity va{3.f, 4.f};
    w.emplace(a, 1, std::as_bytes(std::span{&va, 1}));
    CHECK(w.group_lengths()[0] == 1u); // the group packed it, as emplace<velocity> would
    float y = 0;
    std::memcpy(&y, w.get(a, 0) + offsetof(position, y), sizeof y);
    CHECK(y == 2.f);
    w.remove(a, 1);
    CHECK(w.group_lengths()[0] == 0u);
    CHECK_FALSE(w.has(a, 1));

    CHECK(w.try_resource(0) == nullptr);
    const game_clock c{42, 60};
    w.set_resource(0, std::as_bytes(std::span{&c, 1}));
    CHECK(w.resource<game_clock>().frame == 42u);
    CHECK(w.try_resource(0) != nullptr);
    CHECK(w.remove_resource(0));
    CHECK_FALSE(w.has_resource<game_clock>());
    CHECK(w.component_count() == 3u);
    CHECK(w.resource_count() == 1u);
}

TEST_CASE("misuse by id is reported before anything changes", "[world][by_id]") {
    schema s;
    s.component<position>().component<frozen>().resource<game_clock>();
    world w{s};
    const auto a = w.create();
    const position p{1.f, 2.f};
    const auto bytes = std::as_bytes(std::span{&p, 1});
    REQUIRE_MISUSE(w.emplace(a, 5, bytes), "id 5, but the schema declares 2");
    REQUIRE_MISUSE(w.emplace(a, 0, bytes.first(4)), "4 bytes given, the type has 8");
    REQUIRE_MISUSE(w.get(a, 0), "has no position");
    REQUIRE_MISUSE(w.get(a, 1), "a tag has no value");
    REQUIRE_MISUSE(w.remove(a, 0), "has no position");
    REQUIRE_MISUSE(w.has(a, 9), "id 9");
    REQUIRE_MISUSE(w.set_resource(0, bytes.first(4)), "4 bytes given");
    REQUIRE_MISUSE(w.try_resource(3), "id 3");
    w.emplace(a, 0, bytes);
    REQUIRE_MISUSE(w.emplace(a, 0, bytes), "already");
    w.destroy(a);
    REQUIRE_MISUSE(w.emplace(a, 0, bytes), "stale");
    CHECK(w.alive() == 0u);
}
