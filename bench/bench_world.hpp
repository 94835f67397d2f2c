#ifndef RETCON_BENCH_WORLD_HPP
#define RETCON_BENCH_WORLD_HPP

// The world the snapshot and netcode benchmarks work on (docs/benchmarks.md, "Snapshots" and
// "Netcode"):
//  - every entity has a Position and a Velocity (two floats each); every second one (in
//    creation order) also has a 32-byte Body;
//  - build_world(w, n) creates n + n/10 entities, destroys n/5 of them chosen at random and
//    creates n/10 more: n live entities, n/10 indices on the free list, an entity table of
//    1.1 n slots, and pools whose order has been shuffled by swap-and-pop (at n = 1M the
//    32-bit handle layout leaves room for 48,575 extra slots only, so n/10 becomes 48,575);
//  - move_system is the "simple movement system": p += v * dt in float, wrapping at the arena
//    edge (1024 units);
//  - churn(w, rng, k) destroys k random live entities and spawns k new ones (spawn/despawn).
// Everything is seeded: the same calls give byte-identical worlds.
#include <retcon/ecs.hpp>

#include <common/rng.hpp>

#include <cstddef>
#include <cstdint>

namespace bench::sw {

struct Position {
    float x, y;
};
RETCON_COMPONENT(Position, x, y);

struct Velocity {
    float dx, dy;
};
RETCON_COMPONENT(Velocity, dx, dy);

/// @brief A 32-byte component (what a game keeps per unit besides its motion).
struct Body {
    std::uint32_t kind, hp, flags, team;
    float angle, spin, radius, mass;
};
RETCON_COMPONENT(Body, kind, hp, flags, team, angle, spin, radius, mass);
static_assert(sizeof(Body) == 32);

/// @brief A small resource (frame counter and RNG state live in the world).
struct Clock {
    std::uint64_t frame;
    std::uint64_t rng;
};
RETCON_RESOURCE(Clock, frame, rng);

inline const retcon::schema &world_schema() {
    static const retcon::schema s = [] {
        retcon::schema r;
        r.component<Position>().component<Velocity>().component<Body>().resource<Clock>();
        return r;
    }();
    return s;
}

/// @brief The tests' seeded generator (splitmix64; tests/support, common/rng.hpp).
using rng = retcon::test::rng;

inline constexpr float arena = 1024.f;
inline constexpr float dt = 1.f / 60.f;

/// @brief Creates one entity with Position, Velocity and (if @p with_body) a Body.
/// @p moving = false gives it a zero velocity (it stays put).
inline retcon::entity spawn(retcon::world &w, rng &r, bool with_body, bool moving = true) {
    const auto e = w.create();
    w.emplace<Position>(e, r.unit() * arena, r.unit() * arena);
    if (moving) w.emplace<Velocity>(e, r.unit() * 64.f - 32.f, r.unit() * 64.f - 32.f);
    else
        w.emplace<Velocity>(e, 0.f, 0.f);
    if (with_body) w.emplace<Body>(e, r.below(8), 100u, 0u, r.below(4), r.unit() * 6.28f, 0.f, 1.f + r.unit(), 10.f);
    return e;
}

/// @brief A live entity chosen at random (the tests' pick_live; the world must have one).
using retcon::test::pick_live;

/// @brief Destroys @p k random live entities, then spawns @p k new ones (half with a Body).
/// New entities move unless @p moving_percent says otherwise.
inline void churn(retcon::world &w, rng &r, std::uint32_t k, std::uint32_t moving_percent = 100) {
    for (std::uint32_t i = 0; i < k; ++i) w.destroy(pick_live(w, r));
    for (std::uint32_t i = 0; i < k; ++i) spawn(w, r, r.below(2) == 0, r.below(100) < moving_percent);
}

/// @brief n live entities after churn (see the file comment); @p moving_percent of them move.
inline void build_world(retcon::world &w, std::uint32_t n, std::uint64_t seed = 1, std::uint32_t moving_percent = 100) {
    rng r{seed};
    // n / 10 extra slots, fewer where the handle layout runs out of indices (1M entities).
    const auto room = static_cast<std::uint32_t>(retcon::entity_traits::max_index + 1u - n);
    const std::uint32_t extra = n / 10 < room ? n / 10 : room;
    w.reserve(n + extra);
    for (std::uint32_t i = 0; i < n + extra; ++i) spawn(w, r, i % 2 == 0, r.below(100) < moving_percent);
    for (std::uint32_t i = 0; i < 2 * extra; ++i) w.destroy(pick_live(w, r));
    for (std::uint32_t i = 0; i < extra; ++i) spawn(w, r, i % 2 == 0, r.below(100) < moving_percent);
    w.set_resource<Clock>(std::uint64_t{0}, seed);
}

/// @brief The movement system: p += v * dt, wrapped into the arena.
inline void move_system(retcon::world &w) {
    w.view<Position, const Velocity>().each([](Position &p, const Velocity &v) {
        p.x += v.dx * dt;
        p.y += v.dy * dt;
        p.x = p.x >= arena ? p.x - arena : (p.x < 0.f ? p.x + arena : p.x);
        p.y = p.y >= arena ? p.y - arena : (p.y < 0.f ? p.y + arena : p.y);
    });
    ++w.resource<Clock>().frame;
}

} // namespace bench::sw

#endif
