#ifndef RETCON_SNAPSHOT_SRC_IMAGE_LAYOUT_HPP
#define RETCON_SNAPSHOT_SRC_IMAGE_LAYOUT_HPP

// The one owner of the world-image layout (docs/file-format.md, "World image"). Internal: never
// installed.
//
// It alone knows the header's identity fields, the order of the sections, their 16-byte padding,
// the limits a reader enforces and the bounds checks:
//   - writers (image_size, save) lay out a live world with `for_each_section`;
//   - readers walk untrusted bytes with `walk_image`, which checks the header and every bound
//     before it hands out a section, and allocates nothing (restore, validate_image and
//     hash(image) use it directly);
//   - the keyframe delta pairs the sections of two images with `section_regions`, and the
//     byte-plane keyframe codec finds its strips with `walk_sections`, which both build on.
// `parse_image` and `image_view` (<retcon/snapshot/image.hpp>) are this owner's public face: every
// section at once, for callers outside snapshot/src and for diff and inspect. They are defined in
// image_layout.cpp.
#include <retcon/ecs/entity.hpp>
#include <retcon/ecs/schema.hpp>
#include <retcon/ecs/world.hpp>
#include <retcon/snapshot/error.hpp>
#include <retcon/snapshot/image.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace retcon::internal::image_layout {

/// @brief Bytes of the image header, the first section.
inline constexpr std::uint64_t header_bytes = sizeof(image_header);
/// @brief Every section starts at a multiple of this; the gap before it is zero bytes.
inline constexpr std::uint64_t section_alignment = 16;
static_assert(header_bytes % section_alignment == 0, "the header needs no padding");

/// @brief Most pools an image may declare (the schema's type limit).
inline constexpr std::uint64_t max_pools = schema::max_types;
/// @brief Most entity slots an image may declare (the handle layout's index range); a pool
/// never holds more elements than there are slots.
inline constexpr std::uint64_t max_entity_slots = std::uint64_t{entity_traits::max_index} + 1u;
/// @brief Bytes of one entity handle in the entity table and the owner arrays: the schema's
/// entity layout (docs/file-format.md), which a file's schema block records and checks.
inline constexpr std::uint64_t handle_bytes = sizeof(entity);
/// @brief Largest element size a pool table may declare (the schema's type size limit).
inline constexpr std::uint64_t max_element_size = std::uint64_t{1} << 20;

/// @brief @p n rounded up to the section alignment ("pad16(n)" in docs/file-format.md).
[[nodiscard]] constexpr std::uint64_t padded(std::uint64_t n) noexcept {
    return (n + section_alignment - 1u) & ~(section_alignment - 1u);
}

/// @brief The sections of an image, in layout order.
enum class section_kind : std::uint8_t {
    header,        ///< image_header
    pool_table,    ///< P element counts, then P element sizes (u32)
    entity_table,  ///< S slot words (entity handles: u32, or u64 with RETCON_ENTITY_64)
    pool_owners,   ///< per pool: count entity handles
    pool_payload,  ///< per pool, after its owners: count × element size bytes
    group_lengths, ///< G packed lengths (u32)
    resources,     ///< the resource block
};

/// @brief One section: its kind, its pool (owners and payload only) and its length before padding.
struct section {
    section_kind kind = section_kind::header;
    std::uint32_t pool = 0;
    std::uint64_t bytes = 0;
};

/// @brief The header values a layout is computed from.
struct counts {
    std::uint64_t pools = 0;
    std::uint64_t entity_slots = 0;
    std::uint64_t groups = 0;
    std::uint64_t resource_bytes = 0;
};

/// @brief Element count and element size of one pool.
struct pool_shape {
    std::uint64_t count = 0;
    std::uint64_t element_size = 0;
};

/// @brief The counts an image header declares.
[[nodiscard]] constexpr counts counts_of(const image_header &h) noexcept {
    return {h.pool_count, h.entity_slots, h.group_count, h.resource_bytes};
}

/// @brief The counts of a live world's image.
[[nodiscard]] inline counts counts_of(const world &w) noexcept {
    return {w.pool_count(), w.entity_table().size(), w.group_lengths().size(), w.resource_bytes().size()};
}

/// @brief The shape of pool @p i of a live world.
[[nodiscard]] inline pool_shape shape_of(const world &w, std::size_t i) noexcept {
    const pool &p = w.pool_at(i);
    return {p.size(), p.element_size()};
}

/**
 * @brief Calls `visit(section)` for every section in layout order: header, pool table, entity
 * table, each pool's owners then payload, group lengths, resources.
 *
 * `shape(i)` gives pool i's `pool_shape`; it is called only after the pool table has been
 * visited, so a reader may take it from the table it has just bounds-checked. `visit` returns
 * false to stop the walk; then this returns false.
 */
template<class Shape, class Visit>
constexpr bool for_each_section(const counts &c, Shape &&shape, Visit &&visit) {
    if (!visit(section{section_kind::header, 0, header_bytes})) return false;
    if (!visit(section{section_kind::pool_table, 0, 8u * c.pools})) return false;
    if (!visit(section{section_kind::entity_table, 0, handle_bytes * c.entity_slots})) return false;
    for (std::uint64_t i = 0; i < c.pools; ++i) {
        const pool_shape p = shape(i);
        const auto pool = static_cast<std::uint32_t>(i);
        if (!visit(section{section_kind::pool_owners, pool, handle_bytes * p.count})) return false;
        if (!visit(section{section_kind::pool_payload, pool, p.count * p.element_size})) return false;
    }
    if (!visit(section{section_kind::group_lengths, 0, 4u * c.groups})) return false;
    return visit(section{section_kind::resources, 0, c.resource_bytes});
}

/// @brief Bytes an image of @p w takes, header and padding included.
[[nodiscard]] inline std::uint64_t total_size(const world &w) noexcept {
    std::uint64_t n = 0;
    for_each_section(
        counts_of(w), [&w](std::uint64_t i) { return shape_of(w, static_cast<std::size_t>(i)); },
        [&n](const section &s) {
            n += padded(s.bytes);
            return true;
        });
    return n;
}

/// @brief Copies @p n bytes of @p src to @p dst (unless they are the same bytes) and zeroes the
/// padding after them; returns where the next section starts.
inline std::byte *put_section(std::byte *dst, const void *src, std::size_t n) noexcept {
    if (n && dst != src) std::memcpy(dst, src, n);
    const auto next = static_cast<std::size_t>(padded(n));
    if (next != n) std::memset(dst + n, 0, next - n);
    return dst + next;
}

// ------------------------------------------------------------------------------------ readers

/// @brief The element sizes of a live world's pools, as walk_image's expectation (no copy).
struct world_element_sizes {
    const world *w;
    [[nodiscard]] std::size_t size() const noexcept { return w->pool_count(); }
    [[nodiscard]] bool empty() const noexcept { return size() == 0; }
    [[nodiscard]] std::uint64_t operator[](std::size_t i) const noexcept { return w->pool_at(i).element_size(); }
};

/**
 * @brief Reads and checks the header of @p image: length, 4-byte alignment, magic (a
 * byte-swapped one says so), version, header size, the declared total against the bytes, the
 * pool count against @p expected_pools (unless @p check_pools is false) and the limits.
 */
result<void> read_header(std::span<const std::byte> image, bool check_pools, std::size_t expected_pools,
                         image_header &out);

/// @brief Error for a section that runs past the end of the image.
error section_past_end(section_kind kind, std::uint64_t bytes, std::uint64_t offset, std::uint64_t total);
/// @brief Error for a pool declaring more elements than there are entity slots.
error pool_over_slots(std::uint32_t pool, std::uint64_t count, std::uint64_t slots);
/// @brief Error for an element size that differs from the schema's.
error element_size_mismatch(std::uint64_t pool, std::uint64_t have, std::uint64_t want);
/// @brief Error for an element size over max_element_size.
error element_size_too_large(std::uint64_t pool, std::uint64_t have);
/// @brief Error for sections that do not end where the image does.
error sections_end_early(std::uint64_t end, std::uint64_t total);

/// @brief The checks between the pool table and its pools: each element size against the
/// expected one (if any), then against the limit. @p table holds 2P u32 values.
template<class Expected>
result<void> check_element_sizes(const std::uint32_t *table, std::uint64_t pools, const Expected &expected) {
    for (std::uint64_t i = 0; i < pools; ++i) {
        const std::uint64_t size = table[pools + i];
        if (!expected.empty() && size != expected[i]) return element_size_mismatch(i, size, expected[i]);
        if (size > max_element_size) return element_size_too_large(i, size);
    }
    return {};
}

/**
 * @brief Walks the sections of untrusted image bytes, checking before it hands out each one.
 *
 * Checks, in order: the header (`read_header`); that the pool table fits; each element size
 * against @p expected (a span of the schema's element sizes, `world_element_sizes`, or an empty
 * span for none) and the limit; the entity table; per pool, that its count does not exceed the
 * entity slots, then its owners and payload; group lengths; resources; and that the sections
 * end exactly at the declared total. `visit(section, bytes)` receives each section's bytes
 * (without padding) as soon as they are checked, so a visitor may see the first sections of an
 * image that later fails. Allocates nothing.
 */
template<class Expected, class Visit>
result<void> walk_image(std::span<const std::byte> image, const Expected &expected, Visit &&visit) {
    image_header h;
    if (auto r = read_header(image, !expected.empty(), expected.size(), h); !r) return r;
    const std::byte *const base = image.data();
    const std::uint64_t total = h.total_size;
    const std::uint32_t *table = nullptr;
    std::uint64_t offset = 0;
    result<void> failure;
    const auto shape = [&](std::uint64_t i) { return pool_shape{table[i], table[h.pool_count + i]}; };
    const bool walked = for_each_section(counts_of(h), shape, [&](const section &s) {
        if (s.kind == section_kind::pool_owners && table[s.pool] > h.entity_slots) {
            failure = pool_over_slots(s.pool, table[s.pool], h.entity_slots);
            return false;
        }
        if (s.bytes > total || offset > total - s.bytes) {
            failure = section_past_end(s.kind, s.bytes, offset, total);
            return false;
        }
        const std::byte *at = base + offset;
        offset += padded(s.bytes);
        if (s.kind == section_kind::pool_table) {
            table = reinterpret_cast<const std::uint32_t *>(at);
            if (auto r = check_element_sizes(table, h.pool_count, expected); !r) {
                failure = std::move(r);
                return false;
            }
        }
        visit(s, std::span<const std::byte>(at, static_cast<std::size_t>(s.bytes)));
        return true;
    });
    if (!walked) return failure;
    if (offset != total) return sections_end_early(offset, total);
    return {};
}

/// @brief walk_image into @p out: every section as a view into @p image (its vectors are reused,
/// so a warm view does not allocate).
template<class Expected>
result<void> parse_into(std::span<const std::byte> image, const Expected &expected, image_view &out) {
    return walk_image(image, expected, [&out](const section &s, std::span<const std::byte> b) {
        const auto *words = reinterpret_cast<const std::uint32_t *>(b.data());
        const auto *handles = reinterpret_cast<const entity *>(b.data());
        switch (s.kind) {
        case section_kind::header:
            std::memcpy(&out.header, b.data(), sizeof(image_header));
            out.owners.resize(out.header.pool_count);
            out.payloads.resize(out.header.pool_count);
            break;
        case section_kind::pool_table:
            out.pool_counts = {words, out.header.pool_count};
            out.element_sizes = {words + out.header.pool_count, out.header.pool_count};
            break;
        case section_kind::entity_table: out.entities = {handles, b.size() / handle_bytes}; break;
        case section_kind::pool_owners: out.owners[s.pool] = {handles, b.size() / handle_bytes}; break;
        case section_kind::pool_payload: out.payloads[s.pool] = b; break;
        case section_kind::group_lengths: out.group_lengths = {words, b.size() / 4u}; break;
        case section_kind::resources: out.resources = b; break;
        }
    });
}

/// @brief The 32-bit word at @p p, in the image's byte order (the host's; docs/file-format.md).
[[nodiscard]] inline std::uint32_t load_u32(const std::byte *p) noexcept {
    std::uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

/**
 * @brief Walks the sections @p image's own header and pool table describe, in layout order,
 * calling `visit(section, offset, shape)` with each section's byte offset and `shape(i)`, pool
 * i's shape read from the table. Checks the layout only, not the header's identity fields or
 * declared total: false unless the pool count, every pool's count and element size are within
 * the limits, every `visit` returned true and the padded sections add up to exactly @p total.
 */
template<class Visit>
bool walk_sections(std::span<const std::byte> image, std::uint64_t total, Visit &&visit) {
    if (image.size() < header_bytes) return false;
    image_header h;
    std::memcpy(&h, image.data(), sizeof h);
    if (h.pool_count > max_pools) return false;
    if (image.size() < header_bytes + padded(8u * std::uint64_t{h.pool_count})) return false;
    const std::byte *table = image.data() + header_bytes;
    const auto shape = [&](std::uint64_t i) {
        return pool_shape{load_u32(table + 4u * i), load_u32(table + 4u * (h.pool_count + i))};
    };
    std::uint64_t offset = 0;
    const bool fits = for_each_section(counts_of(h), shape, [&](const section &s) {
        if (s.kind == section_kind::pool_owners) {
            const pool_shape p = shape(s.pool);
            if (p.count > max_entity_slots || p.element_size > max_element_size) return false;
        }
        if (!visit(s, offset, shape)) return false;
        offset += padded(s.bytes);
        return offset <= total; // counts and sizes within the limits never wrap 64 bits
    });
    return fits && offset == total;
}

/// @brief One section's place in an image: byte offset and padded length.
struct region {
    std::size_t offset = 0;
    std::size_t length = 0;
};

/**
 * @brief The regions of @p image's sections in layout order, computed from its own header and
 * pool table (docs/file-format.md, "Delta keyframes"). Checks the layout only, not the header's
 * identity fields or declared total: false unless the pool count, every pool's count and
 * element size are within the limits and the sections add up to exactly `image.size()`.
 */
bool section_regions(std::span<const std::byte> image, std::vector<region> &out);

/// @brief The element sizes @p s declares for its pools, in pool order (what an image of a world
/// of that schema has in its pool table).
[[nodiscard]] std::vector<std::uint32_t> element_sizes_of(const schema &s);

} // namespace retcon::internal::image_layout

#endif
