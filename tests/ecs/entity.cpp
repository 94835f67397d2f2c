// Entity handles and the entity table: create/destroy/valid, FIFO recycling, versions,
// retirement of saturated slots, null handles, each, clear.
#include "common/components.hpp"
#include "common/misuse.hpp"
#include "ecs/helpers.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <set>
#include <vector>

using namespace retcon;
using namespace retcon::test;

TEST_CASE("entity_traits packs and unpacks index and version", "[entity]") {
    STATIC_REQUIRE(sizeof(entity) == (RETCON_ENTITY_64 ? 8 : 4));
    STATIC_REQUIRE(sizeof(entity_traits::value_type) == sizeof(entity));
    STATIC_REQUIRE(entity_traits::index_bits + entity_traits::version_bits == 8 * sizeof(entity));
    STATIC_REQUIRE(entity_traits::index_bits == (RETCON_ENTITY_64 ? 32 : 20));
    const entity e = entity_traits::construct(12345u, 678u);
    CHECK(to_index(e) == 12345u);
    CHECK(to_version(e) == 678u);
    CHECK(to_integral(e) ==
          (entity_traits::value_type{12345u} | (entity_traits::value_type{678u} << entity_traits::index_bits)));
    // Out-of-range parts are masked, never bleed into each other.
    const entity masked = entity_traits::construct(entity_traits::index_mask + 5u, entity_traits::version_mask + 2u);
    CHECK(to_index(masked) == 4u);
    CHECK(to_version(masked) == 1u);
    CHECK(to_index(null_entity) == entity_traits::index_mask);
    CHECK(to_version(null_entity) == entity_traits::version_mask);
    CHECK(entity_traits::max_index < entity_traits::index_mask);
    CHECK(entity_traits::max_version < entity_traits::version_mask);
}

TEST_CASE("to_string names a handle by index and version", "[entity]") {
    CHECK(to_string(entity_traits::construct(12u, 3u)) == "12v3");
    CHECK(to_string(entity_traits::construct(0u, 0u)) == "0v0");
    CHECK(to_string(null_entity) == "null");
}

TEST_CASE("create hands out distinct live handles, destroy makes them stale", "[entity]") {
    world w{standard_schema()};
    CHECK(w.alive() == 0);
    std::vector<entity> made;
    for (int i = 0; i < 100; ++i) made.push_back(w.create());
    CHECK(w.alive() == 100);
    CHECK(std::set<entity>(made.begin(), made.end()).size() == made.size());
    for (const entity e : made) {
        CHECK(w.valid(e));
        CHECK(e != null_entity);
    }
    w.destroy(made[10]);
    CHECK_FALSE(w.valid(made[10]));
    CHECK(w.alive() == 99);
    for (std::size_t i = 0; i < made.size(); ++i)
        if (i != 10) CHECK(w.valid(made[i]));
}

TEST_CASE("null and never-created handles are never valid", "[entity]") {
    world w{standard_schema()};
    CHECK_FALSE(w.valid(null_entity));
    CHECK_FALSE(w.valid(entity_traits::construct(0, 0)));
    const entity e = w.create();
    CHECK_FALSE(w.valid(null_entity));
    CHECK_FALSE(w.valid(entity_traits::construct(to_index(e) + 1u, 0)));
    CHECK_FALSE(w.valid(entity_traits::construct(to_index(e), to_version(e) + 1u)));
}

TEST_CASE("a recycled index carries a bumped version", "[entity]") {
    world w{standard_schema()};
    const entity a = w.create();
    w.destroy(a);
    const entity b = w.create();
    CHECK(to_index(b) == to_index(a));
    CHECK(to_version(b) == to_version(a) + 1u);
    CHECK(w.valid(b));
    CHECK_FALSE(w.valid(a));
}

TEST_CASE("freed indices are recycled first-in-first-out", "[entity]") {
    world w{standard_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 8; ++i) e.push_back(w.create());
    const std::vector<std::size_t> order{5, 1, 7, 0, 3};
    for (const auto i : order) w.destroy(e[i]);
    for (const auto i : order) {
        const entity r = w.create();
        CHECK(to_index(r) == to_index(e[i]));
        CHECK(to_version(r) == to_version(e[i]) + 1u);
    }
    // Free list empty again: the next handle has a fresh index.
    CHECK(to_index(w.create()) == 8u);

    SECTION("interleaved frees and creates keep FIFO order") {
        const entity x = w.create(); // index 9
        w.destroy(e[2]);
        w.destroy(x);
        const entity y = w.create(); // takes e[2]'s slot (freed first)
        w.destroy(e[4]);
        CHECK(to_index(y) == to_index(e[2]));
        CHECK(to_index(w.create()) == to_index(x));
        CHECK(to_index(w.create()) == to_index(e[4]));
        CHECK(to_index(w.create()) == 10u);
    }
}

TEST_CASE("a freed index is reused only after every earlier-freed one", "[entity]") {
    // Churn with a varying population against a queue model: create must return the oldest
    // freed index, or a fresh one when nothing is free.
    world w{standard_schema()};
    std::vector<entity> live;
    std::deque<std::uint32_t> freed;
    std::uint32_t fresh = 0;
    auto create = [&] {
        const entity n = w.create();
        if (freed.empty()) {
            REQUIRE(to_index(n) == fresh++);
        } else {
            REQUIRE(to_index(n) == freed.front());
            freed.pop_front();
        }
        live.push_back(n);
    };
    for (int i = 0; i < 32; ++i) create();
    for (int round = 0; round < 2000; ++round) {
        const int destroys = round % 3 == 0 ? 2 : 1;
        const int creates = round % 3 == 1 ? 2 : 1;
        for (int k = 0; k < destroys && !live.empty(); ++k) {
            const std::size_t victim = static_cast<std::size_t>(round * 7 + k) % live.size();
            freed.push_back(to_index(live[victim]));
            w.destroy(live[victim]);
            live.erase(live.begin() + static_cast<std::ptrdiff_t>(victim));
        }
        for (int k = 0; k < creates; ++k) create();
    }
    CHECK(w.alive() == live.size());
    CHECK(w.entity_table().size() == fresh);
}

// Driving a version to saturation takes max_version + 1 = 4,095 creates with 32-bit handles and
// 2^32 - 1 with 64-bit ones; there the same retirement is tested from a restored table below.
#if !RETCON_ENTITY_64
TEST_CASE("a slot whose version saturates is retired for good", "[entity]") {
    world w{standard_schema()};
    std::vector<entity> old;
    entity e = w.create();
    const auto idx = to_index(e);
    // Versions 0..max_version are handed out on the same index, then the index retires.
    for (std::uint32_t v = 0; v <= entity_traits::max_version; ++v) {
        REQUIRE(to_index(e) == idx);
        REQUIRE(to_version(e) == v);
        old.push_back(e);
        w.destroy(e);
        e = w.create();
    }
    CHECK(to_index(e) != idx);
    CHECK(to_version(e) == 0u);
    CHECK(w.entity_table()[idx] == null_entity);
    CHECK(w.alive() == 1);
    for (const entity o : old) REQUIRE_FALSE(w.valid(o));
    // The retired index is never handed out again, however much churn follows.
    for (int i = 0; i < 10000; ++i) {
        const entity n = w.create();
        REQUIRE(to_index(n) != idx);
        if (i % 2 == 0) w.destroy(n);
    }
    for (const entity o : old) REQUIRE_FALSE(w.valid(o));
    // A retired slot is not reported as live by each.
    std::size_t visited = 0;
    w.each([&](entity x) {
        CHECK(to_index(x) != idx);
        ++visited;
    });
    CHECK(visited == w.alive());
    // The stale handle to a retired slot is reported as such.
    REQUIRE_MISUSE(w.destroy(old.back()), "retired");
}
#endif

TEST_CASE("misuse: destroying a stale, null or never-created handle", "[entity][misuse]") {
    world w{standard_schema()};
    const entity a = w.create();
    const entity b = w.create();
    w.emplace<position>(b, 1.f, 2.f);
    w.destroy(a);
    const auto before = capture(w);
    REQUIRE_MISUSE(w.destroy(a), "stale entity handle");
    REQUIRE_MISUSE(w.destroy(null_entity), "null entity handle");
    REQUIRE_MISUSE(w.destroy(entity_traits::construct(50, 0)), "never created");
    CHECK(capture(w) == before);
    CHECK(w.valid(b));
    CHECK(w.get<position>(b).y == 2.f);
}

TEST_CASE("destroy removes every component of the entity", "[entity]") {
    world w{standard_schema()};
    const entity a = w.create();
    const entity b = w.create();
    w.emplace<position>(a, 1.f, 1.f);
    w.emplace<velocity>(a, 2.f, 2.f);
    w.emplace<frozen>(a);
    w.emplace<health>(a, 10, std::uint16_t{1}, std::uint8_t{2}, std::uint8_t{0});
    w.emplace<position>(b, 3.f, 3.f);
    w.destroy(a);
    CHECK(w.size<position>() == 1);
    CHECK(w.size<velocity>() == 0);
    CHECK(w.size<frozen>() == 0);
    CHECK(w.size<health>() == 0);
    CHECK(w.get<position>(b).x == 3.f);
    // The recycled index starts without components.
    const entity c = w.create();
    CHECK(to_index(c) == to_index(a));
    CHECK_FALSE(w.any_of<position, velocity, frozen, health>(c));
}

TEST_CASE("reserve does not change observable state", "[entity]") {
    world w{standard_schema()};
    const entity a = w.create();
    w.reserve(1000);
    CHECK(w.alive() == 1);
    CHECK(w.entity_table().size() == 1u);
    CHECK(w.valid(a));
    const entity b = w.create();
    CHECK(to_index(b) == 1u);
    w.reserve<position>(500);
    CHECK(w.size<position>() == 0);
}

TEST_CASE("each visits live entities in index order", "[entity]") {
    world w{standard_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 10; ++i) e.push_back(w.create());
    w.destroy(e[3]);
    w.destroy(e[0]);
    w.destroy(e[9]);
    std::vector<entity> seen;
    w.each([&](entity x) { seen.push_back(x); });
    const std::vector<entity> expected{e[1], e[2], e[4], e[5], e[6], e[7], e[8]};
    CHECK(seen == expected);
    const world &cw = w;
    std::size_t n = 0;
    cw.each([&](entity) { ++n; });
    CHECK(n == w.alive());
}

TEST_CASE("clear destroys every entity and its components", "[entity]") {
    world w{standard_schema()};
    std::vector<entity> e;
    for (int i = 0; i < 20; ++i) {
        e.push_back(w.create());
        w.emplace<position>(e.back(), float(i), 0.f);
        if (i % 2) w.emplace<frozen>(e.back());
    }
    w.destroy(e[4]);
    w.clear();
    CHECK(w.alive() == 0);
    CHECK(w.size<position>() == 0);
    CHECK(w.size<frozen>() == 0);
    for (const entity x : e) CHECK_FALSE(w.valid(x));
    std::size_t n = 0;
    w.each([&](entity) { ++n; });
    CHECK(n == 0);
    // Indices come back in the order clear freed them (e[4] was freed first), versions bumped.
    const entity first = w.create();
    CHECK(to_index(first) == to_index(e[4]));
    CHECK(to_version(first) == 1u);
    const entity second = w.create();
    CHECK(to_index(second) == to_index(e[0]));
    CHECK(to_version(second) == 1u);
}

// Filling the table takes 1,048,575 creates with 32-bit handles; with 64-bit ones it would take
// 2^32 - 1 (16 GB of table), so only the 32-bit build fills it.
#if !RETCON_ENTITY_64
TEST_CASE("create reports a full entity table without changing state", "[entity][misuse]") {
    world w{standard_schema()};
    w.reserve(entity_traits::max_index + 1u);
    for (std::uint32_t i = 0; i <= entity_traits::max_index; ++i) (void)w.create();
    CHECK(w.alive() == entity_traits::max_index + 1u);
    REQUIRE_MISUSE((void)w.create(), "full");
    CHECK(w.alive() == entity_traits::max_index + 1u);
    CHECK(w.entity_table().size() == entity_traits::max_index + 1u);
    // Freeing one makes room again.
    w.destroy(entity_traits::construct(7, 0));
    CHECK(to_index(w.create()) == 7u);
}
#endif

#if RETCON_ENTITY_64
TEST_CASE("64-bit handles: a world holds more than 1,048,574 live entities", "[entity]") {
    world w{standard_schema()};
    constexpr std::uint32_t n = 2'000'000; // past the 32-bit layout's 1,048,575 indices
    w.reserve(n);
    entity last = null_entity;
    for (std::uint32_t i = 0; i < n; ++i) last = w.create();
    CHECK(w.alive() == n);
    CHECK(to_index(last) == n - 1u);
    CHECK(w.valid(last));
    w.emplace<health>(last, 7, std::uint16_t{2}, std::uint8_t{1}, std::uint8_t{0});
    CHECK(w.get<health>(last).hp == 7);
    // Recycling past the old limit bumps the version as usual.
    w.destroy(last);
    CHECK_FALSE(w.valid(last));
    const entity again = w.create();
    CHECK(to_index(again) == n - 1u);
    CHECK(to_version(again) == 1u);
}

TEST_CASE("64-bit handles: a slot restored at the last version is retired when destroyed", "[entity]") {
    world w{standard_schema()};
    const entity a = w.create();
    (void)w.create();
    auto s = capture(w);
    s.table[0] = entity_traits::construct(0, entity_traits::max_version);
    assign(w, s);
    const entity old = entity_traits::construct(0, entity_traits::max_version);
    REQUIRE(w.valid(old));
    CHECK_FALSE(w.valid(a));
    w.destroy(old);
    CHECK(w.entity_table()[0] == null_entity);
    CHECK(to_index(w.create()) == 2u); // index 0 is never handed out again
}
#endif

TEST_CASE("a program compiled with the other handle width is refused by name", "[entity][misuse]") {
    CHECK(internal::library_entity_bits() == 8u * sizeof(entity));
    internal::check_entity_bits(8u * sizeof(entity)); // the same width passes
#if RETCON_ENTITY_64
    REQUIRE_MISUSE(internal::check_entity_bits(32),
                   "retcon was built with 64-bit entity handles, this program with 32-bit: define RETCON_ENTITY_64=1");
#else
    REQUIRE_MISUSE(internal::check_entity_bits(64),
                   "retcon was built with 32-bit entity handles, this program with 64-bit: define RETCON_ENTITY_64=0");
#endif
}

TEST_CASE("a world with an empty schema still manages entities", "[entity]") {
    world w{schema{}};
    CHECK(w.pool_count() == 0u);
    const entity a = w.create();
    const entity b = w.create();
    w.destroy(a);
    CHECK(w.valid(b));
    CHECK(to_index(w.create()) == to_index(a));
    w.clear();
    CHECK(w.alive() == 0);
    CHECK(validate(w, capture(w)).empty());
}
