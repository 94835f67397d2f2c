// Views: matching, exclusion, tags, callbacks, range-for, determinism, and structural changes
// to the visited entity during iteration.
#include "common/components.hpp"
#include "ecs/helpers.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <type_traits>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {
/// 30 entities: all have position; i%2 velocity; i%3 health; i%5 frozen; i%7 destroyed.
struct fixture {
    world w;
    std::vector<entity> e;
    explicit fixture(const schema &s = standard_schema()) : w{s} {
        for (int i = 0; i < 30; ++i) {
            const entity x = w.create();
            e.push_back(x);
            w.emplace<position>(x, float(i), 0.f);
            if (i % 2 == 0) w.emplace<velocity>(x, float(i), 1.f);
            if (i % 3 == 0) w.emplace<health>(x, i, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
            if (i % 5 == 0) w.emplace<frozen>(x);
        }
        for (int i = 0; i < 30; i += 7) w.destroy(e[static_cast<std::size_t>(i)]);
    }
    /// Live entities whose creation index satisfies @p pred.
    template<class P>
    std::set<entity> expected(P pred) const {
        std::set<entity> out;
        for (int i = 0; i < 30; ++i)
            if (i % 7 != 0 && pred(i)) out.insert(e[static_cast<std::size_t>(i)]);
        return out;
    }
};
} // namespace

TEST_CASE("single-component view visits every owner once", "[view]") {
    fixture f;
    std::multiset<entity> seen;
    f.w.view<position>().each([&](entity x, position &p) {
        seen.insert(x);
        CHECK(&p == &f.w.get<position>(x));
    });
    CHECK(std::set<entity>(seen.begin(), seen.end()) == f.expected([](int) { return true; }));
    CHECK(seen.size() == f.w.size<position>());
    // Callback without the entity.
    int n = 0;
    f.w.view<position>().each([&](position &p) {
        p.y += 1.f;
        ++n;
    });
    CHECK(n == static_cast<int>(f.w.size<position>()));
    f.w.view<const position>().each([](const position &p) { CHECK(p.y == 1.f); });
}

TEST_CASE("two- and three-component views visit exactly the intersection", "[view]") {
    fixture f;
    std::set<entity> two;
    f.w.view<position, velocity>().each([&](entity x, position &p, velocity &v) {
        CHECK(two.insert(x).second);
        CHECK(p.x == v.dx);
    });
    CHECK(two == f.expected([](int i) { return i % 2 == 0; }));

    std::set<entity> three;
    f.w.view<velocity, const position, health>().each([&](entity x, velocity &, const position &p, health &h) {
        CHECK(three.insert(x).second);
        CHECK(float(h.hp) == p.x);
    });
    CHECK(three == f.expected([](int i) { return i % 6 == 0; }));
    int calls = 0;
    f.w.view<velocity, const position, health>().each([&](velocity &, const position &, health &) { ++calls; });
    CHECK(calls == static_cast<int>(three.size()));
}

TEST_CASE("exclude lists and tags as filters", "[view]") {
    fixture f;
    std::set<entity> seen;
    f.w.view<position>(exclude<frozen>).each([&](entity x, position &) { CHECK(seen.insert(x).second); });
    CHECK(seen == f.expected([](int i) { return i % 5 != 0; }));

    seen.clear();
    f.w.view<position, velocity>(exclude<frozen, health>).each([&](entity x, position &, velocity &) {
        CHECK(seen.insert(x).second);
    });
    CHECK(seen == f.expected([](int i) { return i % 2 == 0 && i % 5 != 0 && i % 3 != 0; }));

    // A tag in the get list filters but passes nothing.
    seen.clear();
    f.w.view<frozen, position>().each([&](entity x, position &p) {
        CHECK(seen.insert(x).second);
        CHECK(p.x >= 0.f);
    });
    CHECK(seen == f.expected([](int i) { return i % 5 == 0; }));

    // A view of a tag alone.
    seen.clear();
    f.w.view<frozen>().each([&](entity x) { CHECK(seen.insert(x).second); });
    CHECK(seen == f.expected([](int i) { return i % 5 == 0; }));
    int n = 0;
    f.w.view<frozen>().each([&] { ++n; });
    CHECK(n == static_cast<int>(seen.size()));
}

TEST_CASE("range-for with structured bindings", "[view]") {
    fixture f;
    std::set<entity> seen;
    for (auto [x, p, v] : f.w.view<position, const velocity>()) {
        STATIC_REQUIRE(std::is_same_v<decltype(p), position &>);
        STATIC_REQUIRE(std::is_same_v<decltype(v), const velocity &>);
        CHECK(seen.insert(x).second);
        p.y = v.dx;
    }
    CHECK(seen == f.expected([](int i) { return i % 2 == 0; }));
    for (const entity x : seen) CHECK(f.w.get<position>(x).y == f.w.get<velocity>(x).dx);

    seen.clear();
    for (auto [x, p] : f.w.view<frozen, position>(exclude<health>)) {
        CHECK(seen.insert(x).second);
        (void)p;
    }
    CHECK(seen == f.expected([](int i) { return i % 5 == 0 && i % 3 != 0; }));

    seen.clear();
    for (auto [x] : f.w.view<marked>()) seen.insert(x);
    CHECK(seen.empty());

    // Range-for and each visit the same entities in the same order.
    std::vector<entity> a;
    std::vector<entity> b;
    for (auto [x, p] : f.w.view<position>(exclude<frozen>)) a.push_back(x), (void)p;
    f.w.view<position>(exclude<frozen>).each([&](entity x, position &) { b.push_back(x); });
    CHECK(a == b);
    a.clear();
    b.clear();
    for (auto [x, v, h] : f.w.view<velocity, health>()) a.push_back(x), (void)v, (void)h;
    f.w.view<velocity, health>().each([&](entity x, velocity &, health &) { b.push_back(x); });
    CHECK(a == b);
}

TEST_CASE("views of a const world", "[view]") {
    fixture f;
    const world &cw = f.w;
    std::set<entity> seen;
    cw.view<const position, const velocity>(exclude<frozen>).each([&](entity x, const position &, const velocity &) {
        seen.insert(x);
    });
    CHECK(seen == f.expected([](int i) { return i % 2 == 0 && i % 5 != 0; }));
    int n = 0;
    for (auto [x, p] : cw.view<const position>()) {
        STATIC_REQUIRE(std::is_same_v<decltype(p), const position &>);
        ++n;
        (void)x;
    }
    CHECK(n == static_cast<int>(cw.size<position>()));
}

TEST_CASE("contains and size_hint", "[view]") {
    fixture f;
    auto v = f.w.view<position, velocity>(exclude<frozen>);
    CHECK(v.size_hint() == f.w.size<velocity>()); // the smaller pool leads
    for (int i = 0; i < 30; ++i) {
        const entity x = f.e[static_cast<std::size_t>(i)];
        const bool expect = i % 7 != 0 && i % 2 == 0 && i % 5 != 0;
        CHECK(v.contains(x) == expect);
    }
    CHECK_FALSE(v.contains(null_entity));
    // A stale handle whose index was recycled is not contained.
    const entity reused = f.w.create();
    f.w.emplace<position>(reused, 0.f, 0.f);
    f.w.emplace<velocity>(reused, 0.f, 0.f);
    CHECK(v.contains(reused));
    CHECK_FALSE(v.contains(f.e[0]));
    CHECK(f.w.view<health>().size_hint() == f.w.size<health>());
}

TEST_CASE("iteration order is deterministic", "[view]") {
    auto run = [](const schema &s) {
        fixture f{s};
        f.w.remove<position>(f.e[4]);
        f.w.emplace<position>(f.e[4], 4.f, 4.f);
        f.w.destroy(f.e[9]);
        std::vector<entity> order;
        f.w.view<position>().each([&](entity x, position &) { order.push_back(x); });
        f.w.view<position, velocity>(exclude<frozen>).each([&](entity x, position &, velocity &) {
            order.push_back(x);
        });
        for (auto [x, h, p] : f.w.view<health, position>()) order.push_back(x), (void)h, (void)p;
        return order;
    };
    CHECK(run(standard_schema()) == run(standard_schema()));
    CHECK(run(grouped_schema()) == run(grouped_schema()));
}

namespace {
/// Runs @p visit over a fresh fixture, where visit destroys or strips entities as it goes, and
/// checks every entity that matched at the start was visited exactly once.
template<class Visit>
void check_mutating_walk(const schema &s, Visit visit) {
    fixture f{s};
    const auto matching = f.expected([](int i) { return i % 2 == 0; }); // position + velocity
    std::map<entity, int> visits;
    visit(f.w, visits);
    CHECK(visits.size() == matching.size());
    for (const entity x : matching) CHECK(visits[x] == 1);
    CHECK(group_invariants(f.w).empty());
}
} // namespace

TEST_CASE("destroying or stripping the visited entity during each is safe", "[view]") {
    const schema s = GENERATE(standard_schema(), grouped_schema());
    SECTION("destroy every visited entity, multi-component view") {
        check_mutating_walk(s, [](world &w, std::map<entity, int> &visits) {
            w.view<position, velocity>().each([&](entity x, position &, velocity &) {
                ++visits[x];
                w.destroy(x);
            });
            CHECK(w.view<position, velocity>().size_hint() == 0);
        });
    }
    SECTION("destroy every other visited entity") {
        check_mutating_walk(s, [](world &w, std::map<entity, int> &visits) {
            int k = 0;
            w.view<position, velocity>().each([&](entity x, position &, velocity &) {
                ++visits[x];
                if (k++ % 2 == 0) w.destroy(x);
            });
        });
    }
    SECTION("remove a component of the visited entity, lead and non-lead pools") {
        check_mutating_walk(s, [](world &w, std::map<entity, int> &visits) {
            int k = 0;
            w.view<position, velocity>().each([&](entity x, position &, velocity &) {
                ++visits[x];
                if (k % 2 == 0) w.remove<velocity>(x);
                else
                    w.remove<position>(x);
                ++k;
            });
        });
    }
    SECTION("single-component view") {
        fixture f{s};
        std::map<entity, int> visits;
        const auto all = f.expected([](int) { return true; });
        int k = 0;
        f.w.view<position>().each([&](entity x, position &) {
            ++visits[x];
            if (k++ % 3 != 1) f.w.destroy(x);
        });
        CHECK(visits.size() == all.size());
        for (const entity x : all) CHECK(visits[x] == 1);
        CHECK(group_invariants(f.w).empty());
    }
}

TEST_CASE("destroying or stripping the visited entity during range-for is safe", "[view]") {
    const schema s = GENERATE(standard_schema(), grouped_schema());
    SECTION("destroy") {
        check_mutating_walk(s, [](world &w, std::map<entity, int> &visits) {
            for (auto [x, p, v] : w.view<position, velocity>()) {
                ++visits[x];
                w.destroy(x);
                (void)p, (void)v;
            }
        });
    }
    SECTION("remove every other") {
        check_mutating_walk(s, [](world &w, std::map<entity, int> &visits) {
            int k = 0;
            for (auto [x, p, v] : w.view<position, velocity>()) {
                ++visits[x];
                if (k++ % 2 == 0) w.remove<position>(x);
                else
                    w.remove<velocity>(x);
                (void)p, (void)v;
            }
        });
    }
    SECTION("single-component view") {
        fixture f{s};
        std::map<entity, int> visits;
        const auto all = f.expected([](int) { return true; });
        for (auto [x, p] : f.w.view<position>()) {
            ++visits[x];
            if (to_index(x) % 2 == 0) f.w.destroy(x);
            (void)p;
        }
        CHECK(visits.size() == all.size());
        for (const entity x : all) CHECK(visits[x] == 1);
    }
}

TEST_CASE("a view sees changes made to values through it", "[view]") {
    fixture f;
    f.w.view<position, const velocity>().each([](position &p, const velocity &v) { p.x += v.dy; });
    for (int i = 0; i < 30; i += 2) {
        if (i % 7 == 0) continue;
        CHECK(f.w.get<position>(f.e[static_cast<std::size_t>(i)]).x == float(i) + 1.f);
    }
}

namespace {
/// @p n entities created with position and velocity in the same order (so the dense arrays of
/// the two pools line up), every fourth also health, every fifth frozen; some entities in the
/// middle then lose velocity so that some blocks line up and some do not.
world aligned_world(const schema &s, int n, std::vector<entity> &e) {
    world w{s};
    for (int i = 0; i < n; ++i) {
        e.push_back(w.create());
        w.emplace<position>(e.back(), float(i), 0.f);
        w.emplace<velocity>(e.back(), float(i), 0.f);
        if (i % 4 == 0) w.emplace<health>(e.back(), i, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
        if (i % 5 == 0) w.emplace<frozen>(e.back());
    }
    for (int i = n / 2; i < n / 2 + 10; ++i) w.remove<velocity>(e[static_cast<std::size_t>(i)]);
    return w;
}
} // namespace

TEST_CASE("large views: each and range-for agree, lined-up pools or not", "[view]") {
    const schema s = GENERATE(standard_schema(), grouped_schema());
    const int n = GENERATE(63, 64, 65, 500);
    std::vector<entity> e;
    world w = aligned_world(s, n, e);
    auto check_same = [&](auto view, auto matches) {
        std::vector<entity> by_each;
        std::vector<entity> by_range;
        view.each([&](entity x, auto &...) { by_each.push_back(x); });
        for (auto item : view) by_range.push_back(std::get<0>(item));
        CHECK(by_each == by_range);
        std::set<entity> expected;
        for (int i = 0; i < n; ++i)
            if (matches(i)) expected.insert(e[static_cast<std::size_t>(i)]);
        CHECK(std::set<entity>(by_each.begin(), by_each.end()) == expected);
        CHECK(by_each.size() == expected.size());
    };
    const auto has_vel = [n](int i) { return !(i >= n / 2 && i < n / 2 + 10); };
    check_same(w.view<position, velocity>(), has_vel);
    check_same(w.view<velocity, const position>(exclude<frozen>), [&](int i) { return has_vel(i) && i % 5 != 0; });
    check_same(w.view<position, velocity, health>(), [&](int i) { return has_vel(i) && i % 4 == 0; });
    check_same(w.view<frozen, position, velocity>(), [&](int i) { return has_vel(i) && i % 5 == 0; });
    // Values handed out belong to the visited entity.
    w.view<position, const velocity>().each([&](entity x, position &p, const velocity &v) {
        REQUIRE(p.x == v.dx);
        REQUIRE(w.entity_of(p) == x);
    });
}

TEST_CASE("large views: destroying and stripping during each", "[view]") {
    const schema s = GENERATE(standard_schema(), grouped_schema());
    const int n = GENERATE(64, 200, 500);
    std::vector<entity> e;
    world w = aligned_world(s, n, e);
    std::set<entity> expected;
    w.view<position, velocity>(exclude<frozen>).each([&](entity x, position &, velocity &) { expected.insert(x); });
    std::map<entity, int> visits;
    int k = 0;
    w.view<position, velocity>(exclude<frozen>).each([&](entity x, position &p, velocity &v) {
        ++visits[x];
        REQUIRE(p.x == v.dx);
        switch (k++ % 4) {
        case 0: w.destroy(x); break;
        case 1: w.remove<velocity>(x); break;
        case 2: w.remove<position>(x); break;
        default: w.emplace_or_replace<frozen>(x); break; // a tag on the visited entity: excluded pool
        }
    });
    CHECK(visits.size() == expected.size());
    for (const entity x : expected) CHECK(visits[x] == 1);
    CHECK(group_invariants(w).empty());
    int left = 0;
    w.view<position, velocity>(exclude<frozen>).each([&](position &, velocity &) { ++left; });
    CHECK(left == 0);
}

namespace {
/// The entities `world::each` + `all_of<Get...>` + `!any_of<Exclude...>` select: what a view
/// must visit, computed without a view.
template<class... Get, class... Exclude>
std::set<entity> reference(const world &w, exclude_t<Exclude...> = {}) {
    std::set<entity> out;
    w.each([&](entity x) {
        if (w.all_of<std::remove_const_t<Get>...>(x) && !(w.has<Exclude>(x) || ...)) out.insert(x);
    });
    return out;
}

template<class View>
std::vector<entity> walk_each(const View &v) {
    std::vector<entity> out;
    v.each([&](entity x, auto &...) { out.push_back(x); });
    return out;
}

template<class View>
std::vector<entity> walk_range(const View &v) {
    std::vector<entity> out;
    for (auto item : v) out.push_back(std::get<0>(item));
    return out;
}

/// Blocks of 64 (counted from the end, as `each` walks) in which position's and velocity's
/// dense arrays hold the same entities, and blocks in which they do not.
std::pair<int, int> aligned_blocks(const world &w) {
    const pool &p = w.pool_at(w.get_schema().find_component("position"));
    const pool &v = w.pool_at(w.get_schema().find_component("velocity"));
    const pool &lead = v.size() < p.size() ? v : p; // the view's choice: the first smallest
    const pool &other = &lead == &p ? v : p;
    int same = 0;
    int differ = 0;
    for (std::uint32_t i = lead.size(); i > 0;) {
        const std::uint32_t lo = i > 64u ? i - 64u : 0u;
        const bool ok = other.size() >= i &&
                        std::equal(lead.owners().data() + lo, lead.owners().data() + i, other.owners().data() + lo);
        ++(ok ? same : differ);
        i = lo;
    }
    return {same, differ};
}

/// Thousands of entities created with position and velocity in the same order (the pools line
/// up, so `each` takes its no-lookup path), some with health and frozen, then a few random
/// destroys and remove/re-add cycles and some entities with only one of the two, so that some
/// blocks do not line up. position.x, position.y and velocity.dx all hold the entity's id.
world random_world(const schema &s, std::mt19937 &rng) {
    world w{s};
    auto one_in = [&](std::uint32_t k) { return rng() % k == 0u; };
    const int n = 3000 + static_cast<int>(rng() % 2000u);
    std::vector<entity> made;
    for (int i = 0; i < n; ++i) {
        const entity x = w.create();
        made.push_back(x);
        const float id = float(to_index(x));
        w.emplace<position>(x, id, id);
        w.emplace<velocity>(x, id, 0.f);
        if (one_in(4))
            w.emplace<health>(x, static_cast<std::int32_t>(id), std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
        if (one_in(6)) w.emplace<frozen>(x);
    }
    for (int k = 0; k < 12; ++k) {
        const entity x = made[rng() % made.size()];
        if (!w.valid(x)) continue;
        const float id = float(to_index(x));
        switch (rng() % 3u) {
        case 0: w.destroy(x); break;
        case 1:
            w.remove<velocity>(x);
            if (one_in(2)) w.emplace<velocity>(x, id, 0.f);
            break;
        default:
            w.remove<position>(x);
            w.emplace<position>(x, id, id);
            break;
        }
    }
    const int extras = 20 + static_cast<int>(rng() % 50u);
    for (int i = 0; i < extras; ++i) {
        const entity x = w.create();
        const float id = float(to_index(x));
        if (one_in(2)) w.emplace<position>(x, id, id);
        else
            w.emplace<velocity>(x, id, 0.f);
        if (one_in(3)) w.emplace<frozen>(x);
    }
    return w;
}
} // namespace

TEST_CASE("randomized large views: each, range-for and world::each agree", "[view][random]") {
    const schema s = GENERATE(standard_schema(), grouped_schema());
    const std::uint32_t seed = GENERATE(1u, 2u, 3u, 4u, 5u);
    CAPTURE(seed);
    std::mt19937 rng{seed};
    world w = random_world(s, rng);
    const auto [same, differ] = aligned_blocks(w);
    CHECK(same > 20);  // the blocked path is taken...
    CHECK(differ > 0); // ...and so is the per-entity one

    auto check = [&](const auto &view, const std::set<entity> &expected) {
        const auto by_each = walk_each(view);
        CHECK(by_each == walk_range(view));                                  // same entities, same order
        CHECK(by_each.size() == expected.size());                            // each once...
        CHECK(std::set<entity>(by_each.begin(), by_each.end()) == expected); // ...exactly the matches
    };
    check(w.view<position, velocity>(), reference<position, velocity>(w));
    check(w.view<velocity, const position>(exclude<frozen>), reference<velocity, position>(w, exclude<frozen>));
    check(w.view<position, velocity, health>(), reference<position, velocity, health>(w));
    check(w.view<frozen, position, velocity>(), reference<frozen, position, velocity>(w));
    check(w.view<position, velocity>(exclude<health, frozen>),
          reference<position, velocity>(w, exclude<health, frozen>));
    check(w.view<position>(exclude<velocity>), reference<position>(w, exclude<velocity>));
    // Every value handed out belongs to the visited entity.
    w.view<position, const velocity>().each([&](entity x, position &p, const velocity &v) {
        REQUIRE(p.x == float(to_index(x)));
        REQUIRE(v.dx == float(to_index(x)));
        REQUIRE(&p == &w.get<position>(x));
    });
    for (auto [x, p, v, h] : w.view<const position, velocity, const health>()) {
        REQUIRE(p.y == float(to_index(x)));
        REQUIRE(&v == &w.get<velocity>(x));
        REQUIRE(h.hp == static_cast<std::int32_t>(to_index(x)));
    }
}

TEST_CASE("randomized large views: destroying and stripping the visited entity", "[view][random]") {
    const schema s = GENERATE(standard_schema(), grouped_schema());
    const std::uint32_t seed = GENERATE(11u, 12u, 13u, 14u, 15u);
    const bool range_for = GENERATE(false, true);
    CAPTURE(seed, range_for);
    std::mt19937 rng{seed};
    world w = random_world(s, rng);

    // Visits every match of `view` once while doing something random to the visited entity:
    // nothing, destroy it, or remove one of its components (included or not).
    auto mutate = [&](const auto &view, const std::set<entity> &expected) {
        std::map<entity, int> visits;
        auto act = [&](entity x) {
            ++visits[x];
            REQUIRE(w.valid(x));
            switch (rng() % 6u) {
            case 0: break;
            case 1: w.destroy(x); break;
            case 2: w.try_remove<velocity>(x); break;
            case 3: w.remove<position>(x); break; // in every view below
            case 4: w.try_remove<health>(x); break;
            default: w.try_remove<frozen>(x); break;
            }
        };
        if (range_for) {
            for (auto item : view) {
                const entity x = std::get<0>(item);
                REQUIRE(std::get<1>(item).x == float(to_index(x)));
                act(x);
            }
        } else {
            view.each([&](entity x, position &p, auto &...) {
                REQUIRE(p.x == float(to_index(x)));
                act(x);
            });
        }
        CHECK(visits.size() == expected.size());
        for (const auto &[x, count] : visits) {
            CHECK(count == 1);
            CHECK(expected.count(x) == 1);
        }
        CHECK(group_invariants(w).empty());
    };
    mutate(w.view<position, velocity>(), reference<position, velocity>(w));
    mutate(w.view<position, velocity>(exclude<frozen>), reference<position, velocity>(w, exclude<frozen>));
    mutate(w.view<position, velocity, health>(), reference<position, velocity, health>(w));
    mutate(w.view<position, frozen>(), reference<position, frozen>(w));
    // The survivors are still found by each, range-for and the reference alike.
    const auto after = reference<position, velocity>(w);
    const auto by_each = walk_each(w.view<position, velocity>());
    CHECK(by_each == walk_range(w.view<position, velocity>()));
    CHECK(std::set<entity>(by_each.begin(), by_each.end()) == after);
    CHECK(by_each.size() == after.size());
}
