#ifndef RETCON_TESTS_WORLD_GEN_HPP
#define RETCON_TESTS_WORLD_GEN_HPP

// Seeded random worlds and operations for the snapshot tests (determinism, rollback, files).
//
// Every operation is chosen from the generator's state and the world's state only, so two
// worlds in the same state fed the same seed undergo the same operations. `simulate_frame`
// seeds its generator from (seed, frame): a frame's operations depend only on the world state
// and the frame number, so a world that rolls back and re-simulates sees the same operations.
#include <retcon/ecs.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "components.hpp"
#include "rng.hpp"

namespace retcon::test {

/// @brief What the random operations may do.
struct gen_options {
    std::uint32_t ops_per_frame = 8;     ///< random operations per simulated frame
    std::uint32_t max_entities = 200;    ///< creation stops at this many live entities
    std::uint32_t clear_percent_x10 = 1; ///< chance (per mille) that an operation clears the world
};

inline name_tag random_name(rng &r) {
    name_tag n{};
    n.text.assign("n" + std::to_string(r.below(100000)));
    return n;
}

inline inventory random_inventory(rng &r) {
    inventory inv{};
    const std::uint32_t k = r.below(8);
    for (std::uint32_t i = 0; i < k; ++i) inv.items.push_back(static_cast<std::uint16_t>(r.below(65536)));
    return inv;
}

inline health random_health(rng &r) {
    return health{static_cast<std::int32_t>(r.below(200)) - 20, static_cast<std::uint16_t>(r.below(100)),
                  static_cast<std::uint8_t>(r.below(4)), 0};
}

/// @brief Adds (or overwrites) component number @p k (standard_schema order) on @p e.
inline void put_component(world &w, entity e, std::uint32_t k, rng &r) {
    switch (k) {
    case 0: w.emplace_or_replace<position>(e, r.coord(), r.coord()); break;
    case 1: w.emplace_or_replace<velocity>(e, r.coord(), r.coord()); break;
    case 2: w.emplace_or_replace<health>(e, random_health(r)); break;
    case 3: w.emplace_or_replace<name_tag>(e, random_name(r)); break;
    case 4: w.emplace_or_replace<target>(e, pick_live(w, r)); break;
    case 5: w.emplace_or_replace<inventory>(e, random_inventory(r)); break;
    case 6: w.emplace_or_replace<frozen>(e); break;
    default: w.emplace_or_replace<marked>(e); break;
    }
}

/// @brief Removes component number @p k from @p e if it has one.
inline void drop_component(world &w, entity e, std::uint32_t k) {
    switch (k) {
    case 0: (void)w.try_remove<position>(e); break;
    case 1: (void)w.try_remove<velocity>(e); break;
    case 2: (void)w.try_remove<health>(e); break;
    case 3: (void)w.try_remove<name_tag>(e); break;
    case 4: (void)w.try_remove<target>(e); break;
    case 5: (void)w.try_remove<inventory>(e); break;
    case 6: (void)w.try_remove<frozen>(e); break;
    default: (void)w.try_remove<marked>(e); break;
    }
}

/// @brief Creates an entity with a random set of components.
inline entity spawn_random(world &w, rng &r) {
    const entity e = w.create();
    static constexpr std::uint32_t odds[8] = {70, 50, 50, 20, 20, 20, 10, 10};
    for (std::uint32_t k = 0; k < 8; ++k)
        if (r.chance(odds[k])) put_component(w, e, k, r);
    return e;
}

/// @brief One random operation on a world of standard_schema() or grouped_schema().
inline void random_op(world &w, rng &r, const gen_options &opt = {}) {
    if (opt.clear_percent_x10 && r.below(1000) < opt.clear_percent_x10) {
        w.clear();
        return;
    }
    switch (r.below(12)) {
    case 0:
    case 1:
    case 2:
        if (w.alive() < opt.max_entities) spawn_random(w, r);
        break;
    case 3:
    case 4:
        if (const entity e = pick_live(w, r); e != null_entity) w.destroy(e);
        break;
    case 5:
        if (const entity e = pick_live(w, r); e != null_entity) put_component(w, e, r.below(8), r);
        break;
    case 6:
        if (const entity e = pick_live(w, r); e != null_entity) drop_component(w, e, r.below(8));
        break;
    case 7: // movement system
        w.view<position, const velocity>().each([](position &p, const velocity &v) {
            p.x += v.dx;
            p.y += v.dy;
        });
        break;
    case 8: { // resources
        if (r.chance(10)) {
            (void)w.remove_resource<rng_state>();
        } else {
            w.set_resource<rng_state>(r.next());
            const auto *clock = w.try_resource<game_clock>();
            w.set_resource<game_clock>(clock ? clock->frame + 1u : 0u, 60u);
        }
        break;
    }
    case 9: // iteration order is state: sort a pool no group owns
        if (r.chance(50)) w.sort<health>([](const health &a, const health &b) { return a.hp < b.hp; });
        else
            w.sort<name_tag>([](entity a, entity b) { return to_integral(a) > to_integral(b); });
        break;
    case 10: // damage
        w.view<health>(exclude<frozen>).each([&r](health &h) {
            if (r.chance(30)) h.hp -= static_cast<std::int32_t>(r.below(5));
        });
        break;
    default: { // inventories change in place
        if (const entity e = pick_live(w, r); e != null_entity) {
            if (auto *inv = w.try_get<inventory>(e)) {
                if (!inv->items.full() && r.chance(60))
                    inv->items.push_back(static_cast<std::uint16_t>(r.below(65536)));
                else if (!inv->items.empty())
                    inv->items.pop_back();
            }
        }
        break;
    }
    }
}

/// @brief Simulates frame @p frame: `opt.ops_per_frame` operations seeded by (seed, frame).
inline void simulate_frame(world &w, std::uint64_t seed, std::uint64_t frame, const gen_options &opt = {}) {
    rng r{mix_seed(seed, frame)};
    for (std::uint32_t i = 0; i < opt.ops_per_frame; ++i) random_op(w, r, opt);
}

/// @brief Simulates frames [first, first + count).
inline void simulate(world &w, std::uint64_t seed, std::uint64_t first, std::uint64_t count,
                     const gen_options &opt = {}) {
    for (std::uint64_t f = first; f < first + count; ++f) simulate_frame(w, seed, f, opt);
}

/// @brief Every state region of a world, copied out (what a snapshot holds, sparse index aside).
struct world_regions {
    std::vector<entity> table;
    std::uint32_t free_head = 0, free_tail = 0, alive = 0, reserved = 0;
    std::vector<std::vector<entity>> owners;
    std::vector<std::vector<std::byte>> payloads;
    std::vector<world::size_type> groups;
    std::vector<std::byte> resources;

    friend bool operator==(const world_regions &, const world_regions &) = default;
};

inline world_regions capture(const world &w) {
    world_regions s;
    const auto table = w.entity_table();
    s.table.assign(table.begin(), table.end());
    s.free_head = w.free_list().head;
    s.free_tail = w.free_list().tail;
    s.alive = w.free_list().alive;
    s.reserved = w.free_list().reserved;
    for (std::size_t id = 0; id < w.pool_count(); ++id) {
        const pool &p = w.pool_at(id);
        s.owners.emplace_back(p.owners().data(), p.owners().data() + p.size());
        s.payloads.emplace_back(p.payload(), p.payload() + p.payload_bytes());
    }
    const auto groups = w.group_lengths();
    s.groups.assign(groups.begin(), groups.end());
    const auto res = w.resource_bytes();
    s.resources.assign(res.begin(), res.end());
    return s;
}

/// @brief Which regions differ (for failure messages): "entities", pool indices, "groups", ...
inline std::string describe_difference(const world_regions &a, const world_regions &b) {
    std::string out;
    if (a.table != b.table || a.free_head != b.free_head || a.free_tail != b.free_tail || a.alive != b.alive)
        out += "entities ";
    for (std::size_t i = 0; i < a.owners.size() && i < b.owners.size(); ++i) {
        if (a.owners[i] != b.owners[i]) out += "owners[" + std::to_string(i) + "] ";
        if (a.payloads[i] != b.payloads[i]) out += "payload[" + std::to_string(i) + "] ";
    }
    if (a.groups != b.groups) out += "groups ";
    if (a.resources != b.resources) out += "resources ";
    return out.empty() ? "none" : out;
}

/// @brief A world of @p s after @p frames frames of random operations.
inline world make_random_world(const schema &s, std::uint64_t seed, std::uint64_t frames, const gen_options &opt = {}) {
    world w{s};
    simulate(w, seed, 0, frames, opt);
    return w;
}

} // namespace retcon::test

#endif
