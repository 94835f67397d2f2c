#ifndef RETCON_ECS_ENTITY_HPP
#define RETCON_ECS_ENTITY_HPP

#include <cstdint>
#include <string>
#include <type_traits>

#include "../config.hpp"

namespace retcon {

/**
 * @brief An entity handle: an index into the entity table and a version. 32 bits (a 20-bit
 * index and a 12-bit version) by default; 64 bits (32 + 32) when retcon is built with
 * RETCON_ENTITY_64=1 (docs/config.md, "Entity handles").
 *
 * Handles are plain values: store them in components to relate entities (never pointers).
 * When an entity is destroyed its slot's version is bumped, so every old handle becomes
 * stale, and `world::valid` (and every checked accessor) detects it. Indices are recycled
 * first-in-first-out, so a busy slot waits behind every other free slot before it is reused;
 * a slot whose version reaches `entity_traits::max_version` is retired for good instead of
 * wrapping around.
 */
#if RETCON_ENTITY_64
enum class entity : std::uint64_t {};
#else
enum class entity : std::uint32_t {};
#endif

/// @brief Bit layout of an entity handle.
struct entity_traits {
    /// @brief The raw handle: std::uint64_t with RETCON_ENTITY_64, else std::uint32_t.
    using value_type = std::underlying_type_t<entity>;
    /// @brief Bits of the index part: 32 with RETCON_ENTITY_64, else 20.
    static constexpr unsigned index_bits = RETCON_ENTITY_64 ? 32 : 20;
    /// @brief Bits of the version part: 32 with RETCON_ENTITY_64, else 12.
    static constexpr unsigned version_bits = RETCON_ENTITY_64 ? 32 : 12;
    static constexpr value_type index_mask = (value_type{1} << index_bits) - 1u;
    static constexpr value_type version_mask = (value_type{1} << version_bits) - 1u;
    /// @brief Largest index a live entity can have (the all-ones index is the null index).
    static constexpr value_type max_index = index_mask - 1u;
    /// @brief Largest version a live entity can have; destroying it retires the slot.
    static constexpr value_type max_version = version_mask - 1u;

    /// @brief The raw value of a handle.
    [[nodiscard]] static constexpr value_type to_integral(entity e) noexcept { return static_cast<value_type>(e); }
    /// @brief The index part of a handle (it fits 32 bits in either layout).
    [[nodiscard]] static constexpr std::uint32_t to_index(entity e) noexcept {
        return static_cast<std::uint32_t>(to_integral(e) & index_mask);
    }
    /// @brief The version part of a handle (it fits 32 bits in either layout).
    [[nodiscard]] static constexpr std::uint32_t to_version(entity e) noexcept {
        return static_cast<std::uint32_t>(to_integral(e) >> index_bits);
    }
    /// @brief Builds a handle from an index and a version (each masked to its bits).
    [[nodiscard]] static constexpr entity construct(value_type index, value_type version) noexcept {
        return entity{(index & index_mask) | ((version & version_mask) << index_bits)};
    }
};
static_assert(entity_traits::index_bits + entity_traits::version_bits == 8u * sizeof(entity),
              "index and version fill the handle");

/// @brief The null handle: never valid, never returned by `world::create`.
inline constexpr entity null_entity{~entity_traits::value_type{0}};

/// @brief Index part of @p e (shorthand for entity_traits::to_index).
[[nodiscard]] constexpr std::uint32_t to_index(entity e) noexcept { return entity_traits::to_index(e); }
/// @brief Version part of @p e (shorthand for entity_traits::to_version).
[[nodiscard]] constexpr std::uint32_t to_version(entity e) noexcept { return entity_traits::to_version(e); }
/// @brief Raw value of @p e.
[[nodiscard]] constexpr entity_traits::value_type to_integral(entity e) noexcept {
    return entity_traits::to_integral(e);
}

/// @brief @p e as text for messages, diffs and dumps: index "v" version ("12v3"), or "null".
[[nodiscard]] inline std::string to_string(entity e) {
    if (e == null_entity) return "null";
    return std::to_string(to_index(e)) + "v" + std::to_string(to_version(e));
}

} // namespace retcon

#endif
