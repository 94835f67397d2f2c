#ifndef RETCON_TESTS_ECS_HELPERS_HPP
#define RETCON_TESTS_ECS_HELPERS_HPP

// Helpers shared by the ECS test files: a full copy of a world's state (the regions a snapshot
// would hold), restoring it through assign_state, and the owning-group invariants.
#include <retcon/ecs.hpp>

#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace retcon::test {

/// @brief Every state region of a world, copied out.
struct world_state {
    std::vector<entity> table;
    world::free_list_state free{};
    std::vector<std::vector<entity>> owners;
    std::vector<std::vector<std::byte>> payloads;
    std::vector<world::size_type> groups;
    std::vector<std::byte> resources;

    friend bool operator==(const world_state &a, const world_state &b) {
        return a.table == b.table && a.free.head == b.free.head && a.free.tail == b.free.tail &&
               a.free.alive == b.free.alive && a.free.reserved == b.free.reserved && a.owners == b.owners &&
               a.payloads == b.payloads && a.groups == b.groups && a.resources == b.resources;
    }
};

inline world_state capture(const world &w) {
    world_state s;
    const auto table = w.entity_table();
    s.table.assign(table.begin(), table.end());
    s.free = w.free_list();
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

/// @brief Span tables pointing into @p s, in the shape assign_state/validate_state take.
struct state_spans {
    std::vector<std::span<const entity>> owners;
    std::vector<std::span<const std::byte>> payloads;
    explicit state_spans(const world_state &s) {
        for (const auto &o : s.owners) owners.emplace_back(o);
        for (const auto &p : s.payloads) payloads.emplace_back(p);
    }
};

inline void assign(world &w, const world_state &s) {
    const state_spans spans{s};
    w.assign_state(s.table, s.free, spans.owners, spans.payloads, s.groups, s.resources);
}

/// @brief world::validate_state over @p s.
inline result<void> check_state(const world &w, const world_state &s) {
    const state_spans spans{s};
    return w.validate_state(s.table, s.free, spans.owners, s.groups, s.resources);
}

/// @brief The text of check_state's error; empty if @p s is sound.
inline std::string validate(const world &w, const world_state &s) { return check_state(w, s).message(); }

/// @brief Checks every declared group of @p w: the packed prefix has the same owners at the
/// same positions in every owned pool, and an entity past the prefix lacks at least one owned
/// type. Returns an empty string or what is wrong.
inline std::string group_invariants(const world &w) {
    const auto decl = w.get_schema().groups();
    for (std::size_t g = 0; g < decl.size(); ++g) {
        const auto length = w.group_lengths()[g];
        for (auto id : decl[g])
            if (w.pool_at(id).size() < length) return "group " + std::to_string(g) + " longer than a pool";
        const pool &first = w.pool_at(decl[g][0]);
        for (world::size_type i = 0; i < length; ++i)
            for (auto id : decl[g])
                if (w.pool_at(id).owners().at(i) != first.owners().at(i))
                    return "group " + std::to_string(g) + " prefix differs at " + std::to_string(i);
        for (auto id : decl[g]) {
            const pool &p = w.pool_at(id);
            for (world::size_type i = length; i < p.size(); ++i) {
                bool all = true;
                for (auto other : decl[g]) all = all && w.pool_at(other).contains(p.owners().at(i));
                if (all) return "group " + std::to_string(g) + " misses a complete entity at " + std::to_string(i);
            }
        }
    }
    return {};
}

} // namespace retcon::test

#endif
