#ifndef RETCON_SNAPSHOT_HASH_HPP
#define RETCON_SNAPSHOT_HASH_HPP

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <retcon/ecs/world.hpp>

#include "image.hpp"

namespace retcon {

/// @brief A 64-bit XXH3 hash. On disk and on the wire it is written little-endian.
using hash64 = std::uint64_t;

/**
 * @brief Per-section hashes of a world, and the world hash they combine into.
 *
 * Sections, in order: the entity table (with the free-list header), each pool (element count,
 * owners, payload), the group lengths, the resource block. Each section hash is XXH3-64 over
 * that section's bytes, preceded for the entity table by its four header values (slots, free
 * head, free tail, alive) and for a pool by its element count (docs/file-format.md gives the
 * exact byte sequences); the world hash is XXH3-64 over the section hashes
 * in that order (little-endian u64s). The frame number and the image header are excluded, so
 * a world hashes the same whatever frame it is saved as.
 */
struct world_hashes {
    hash64 world = 0;
    hash64 entities = 0;
    std::vector<hash64> pools; ///< one per declared component type, in schema order
    hash64 groups = 0;
    hash64 resources = 0;

    /// @brief Every section hash in the order the world hash combines them: entities, each
    /// pool, groups, resources (2 + pools + 1 values).
    [[nodiscard]] std::vector<hash64> sections() const;
    /// @brief Names of the sections whose hashes differ ("entities", pool names, "groups",
    /// "resources"), using @p s for pool names.
    [[nodiscard]] std::vector<std::string> diverging(const world_hashes &other, const schema &s) const;
};

/// @brief XXH3-64 of @p bytes (the fast run-time-dispatched kernel; the CPU's upper vector
/// state is cleared afterwards so later SSE code does not pay an AVX transition penalty).
[[nodiscard]] hash64 xxh3(std::span<const std::byte> bytes) noexcept;

/// @brief The world hash of @p w (same value `save` + `hash(snapshot)` would give).
[[nodiscard]] hash64 hash(const world &w);

/// @brief The world hash from an image made by `save`.
[[nodiscard]] hash64 hash(const world_image &s);

/// @brief Every section hash of @p w into @p out (reusing its storage).
void section_hashes(const world &w, world_hashes &out);

/// @brief Every section hash of @p w.
[[nodiscard]] world_hashes section_hashes(const world &w);

/// @brief Every section hash from an image made by `save` (same values as from the world);
/// all zero if @p s is not a well-formed image.
[[nodiscard]] world_hashes section_hashes(const world_image &s);

/// @brief section_hashes(snapshot) into @p out, reusing its storage.
void section_hashes(const world_image &s, world_hashes &out);

} // namespace retcon

#endif
