#ifndef RETCON_SNAPSHOT_DIFF_HPP
#define RETCON_SNAPSHOT_DIFF_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <retcon/ecs/entity.hpp>
#include <retcon/ecs/schema.hpp>

#include "error.hpp"
#include "image.hpp"

namespace retcon {

/// @brief One differing field (or byte range, where the type registered no field there).
struct field_difference {
    std::string field{}; ///< field name, or "bytes[offset..end)" for unnamed ranges
    std::uint32_t offset = 0;
    std::uint32_t size = 0;
    std::string a{}; ///< value in the first snapshot, formatted
    std::string b{}; ///< value in the second snapshot, formatted
};

/// @brief How one entity differs within one pool.
struct entity_difference {
    enum class kind : std::uint8_t { only_in_a, only_in_b, changed };
    entity who{};
    kind what = kind::changed;
    std::vector<field_difference> fields{}; ///< for `changed`
};

/// @brief Differences in one component pool.
struct pool_difference {
    std::string pool{};
    std::uint32_t count_a = 0;
    std::uint32_t count_b = 0;
    bool order_differs = false;                ///< same entities in a different iteration order
    std::vector<entity_difference> entities{}; ///< capped by diff_options::max_entities
    std::size_t entities_total = 0;            ///< before the cap
};

/// @brief Options for `diff`.
struct diff_options {
    std::size_t max_entities = 64; ///< per pool, listed in full
};

/**
 * @brief Everything that differs between two world images: the structural answer to "which
 * pool, which entity, which field diverged" when two peers' hashes disagree.
 */
struct snapshot_diff {
    std::uint64_t frame_a = 0;
    std::uint64_t frame_b = 0;
    std::vector<std::string> schema_differences{}; ///< non-empty: schemas differ, nothing else compared
    std::vector<std::string> entity_table{};       ///< free-list header and slot differences
    std::vector<pool_difference> pools{};          ///< only pools that differ
    bool groups_differ = false;
    std::vector<std::string> resources{}; ///< "resource.field: a -> b"

    /// @brief True if the two worlds are byte-identical (frame numbers aside).
    [[nodiscard]] bool identical() const noexcept {
        return schema_differences.empty() && entity_table.empty() && pools.empty() && !groups_differ &&
               resources.empty();
    }
    /// @brief Human-readable report.
    [[nodiscard]] std::string to_text() const;
    /// @brief Machine-readable report (JSON object).
    [[nodiscard]] std::string to_json() const;
};

/**
 * @brief Compares two images. Each is described by its own schema (snapshot files carry one);
 * if the schemas differ only the schema differences are reported. Images must be valid
 * (`validate_image` or a snapshot file reader has checked them).
 */
result<snapshot_diff> diff(const world_image &a, const schema &schema_a, const world_image &b, const schema &schema_b,
                           const diff_options &options = {});

} // namespace retcon

#endif
