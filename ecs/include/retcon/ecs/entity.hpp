#ifndef RETCON_ECS_ENTITY_HPP
#define RETCON_ECS_ENTITY_HPP

#include <cstdint>
#include <string>

#include "../config.hpp"

namespace retcon {

/**
 * @brief A 32-bit entity handle: a 20-bit index into the entity table and a 12-bit version.
 *
 * Handles are plain values: store them in components to relate entities (never pointers).
 * When an entity is destroyed its slot's version is bumped, so every old handle becomes
 * stale, and `world::valid` (and every checked accessor) detects it. Indices are recycled
 * first-in-first-out, so a busy slot waits behind every other free slot before it is reused;
 * a slot whose version reaches `entity_traits::max_version` is retired for good instead of
 * wrapping around.
 */
enum class entity : std::uint32_t {};

/// @brief Bit layout of an entity handle.
struct entity_traits {
    using value_type = std::uint32_t;
    static constexpr unsigned index_bits = 20;
    static constexpr unsigned version_bits = 12;
    static constexpr value_type index_mask = (value_type{1} << index_bits) - 1u;
    static constexpr value_type version_mask = (value_type{1} << version_bits) - 1u;
    /// @brief Largest index a live entity can have (the all-ones index is the null index).
    static constexpr value_type max_index = index_mask - 1u;
    /// @brief Largest version a live entity can have; destroying it retires the slot.
    static constexpr value_type max_version = version_mask - 1u;

    /// @brief The raw 32-bit value of a handle.
    [[nodiscard]] static constexpr value_type to_integral(entity e) noexcept { return static_cast<value_type>(e); }
    /// @brief The index part of a handle.
    [[nodiscard]] static constexpr value_type to_index(entity e) noexcept { return to_integral(e) & index_mask; }
    /// @brief The version part of a handle.
    [[nodiscard]] static constexpr value_type to_version(entity e) noexcept { return to_integral(e) >> index_bits; }
    /// @brief Builds a handle from an index and a version.
    [[nodiscard]] static constexpr entity construct(value_type index, value_type version) noexcept {
        return entity{(index & index_mask) | ((version & version_mask) << index_bits)};
    }
};

/// @brief The null handle: never valid, never returned by `world::create`.
inline constexpr entity null_entity{~std::uint32_t{0}};

/// @brief Index part of @p e (shorthand for entity_traits::to_index).
[[nodiscard]] constexpr std::uint32_t to_index(entity e) noexcept { return entity_traits::to_index(e); }
/// @brief Version part of @p e (shorthand for entity_traits::to_version).
[[nodiscard]] constexpr std::uint32_t to_version(entity e) noexcept { return entity_traits::to_version(e); }
/// @brief Raw value of @p e.
[[nodiscard]] constexpr std::uint32_t to_integral(entity e) noexcept { return entity_traits::to_integral(e); }

/// @brief @p e as text for messages, diffs and dumps: index "v" version ("12v3"), or "null".
[[nodiscard]] inline std::string to_string(entity e) {
    if (e == null_entity) return "null";
    return std::to_string(to_index(e)) + "v" + std::to_string(to_version(e));
}

} // namespace retcon

#endif
