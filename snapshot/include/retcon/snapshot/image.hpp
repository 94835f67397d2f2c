#ifndef RETCON_SNAPSHOT_IMAGE_HPP
#define RETCON_SNAPSHOT_IMAGE_HPP

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <retcon/ecs/pool.hpp>
#include <retcon/ecs/world.hpp>

#include "error.hpp"

namespace retcon {

/**
 * @brief Fixed 64-byte header at the start of every world image (little-endian, see
 * docs/file-format.md, "World image").
 */
struct image_header {
    std::uint32_t magic = 0;       ///< image_magic
    std::uint16_t version = 0;     ///< image_version
    std::uint16_t header_size = 0; ///< sizeof(image_header)
    std::uint64_t schema_hash = 0; ///< schema::hash() of the world that was saved
    std::uint64_t frame = 0;       ///< the game's frame number (not part of the world hash)
    std::uint32_t entity_slots = 0;
    std::uint32_t free_head = 0;
    std::uint32_t free_tail = 0;
    std::uint32_t alive = 0;
    std::uint32_t pool_count = 0;
    std::uint32_t group_count = 0;
    std::uint32_t resource_bytes = 0;
    std::uint32_t reserved = 0;
    std::uint64_t total_size = 0; ///< bytes in the whole image, header included
};
static_assert(sizeof(image_header) == 64, "image_header is a 64-byte on-disk structure");

/// @brief "RCIM" read as a little-endian u32.
inline constexpr std::uint32_t image_magic = 0x4d494352u;
/// @brief Current image layout version.
inline constexpr std::uint16_t image_version = 1;

/**
 * @brief One world's state as a single contiguous byte image.
 *
 * Layout: header, a pool table (element counts, then element sizes), then 16-byte aligned
 * sections — entity
 * table, each pool's owners and payload, group lengths, resources — with zeroed padding.
 * Built by `save` with one memcpy per region; the object keeps its buffer, so saving again
 * into the same snapshot does not allocate once the buffer has reached its high-water mark.
 * The sparse indices are derived data and are not part of the image.
 */
class world_image {
public:
    world_image() = default;
    world_image(world_image &&) noexcept = default;
    world_image &operator=(world_image &&) noexcept = default;
    world_image(const world_image &other) { *this = other; }
    world_image &operator=(const world_image &other) {
        if (this != &other) {
            buffer_.resize(other.size());
            if (other.size()) std::memcpy(buffer_.data(), other.buffer_.data(), other.size());
        }
        return *this;
    }
    ~world_image() = default;

    /// @brief The whole image.
    [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {buffer_.data(), buffer_.size()}; }
    [[nodiscard]] std::size_t size() const noexcept { return buffer_.size(); }
    [[nodiscard]] bool empty() const noexcept { return buffer_.size() == 0; }
    /// @brief The header. @warning Only on a non-empty snapshot.
    [[nodiscard]] const image_header &header() const noexcept {
        return *std::launder(reinterpret_cast<const image_header *>(buffer_.data()));
    }
    [[nodiscard]] std::uint64_t frame() const noexcept { return empty() ? 0 : header().frame; }
    /// @brief Bytes reserved by the buffer (its high-water mark).
    [[nodiscard]] std::size_t capacity() const noexcept { return buffer_.capacity(); }

    /// @brief Resizes the buffer for a writer that fills it (file loaders); contents unspecified.
    /// The bytes must be checked with `validate_image` before a restore trusts them.
    std::byte *prepare(std::size_t n) {
        buffer_.resize(n);
        return buffer_.data();
    }
    /// @brief Empties the snapshot (capacity is kept).
    void clear() noexcept { buffer_.clear(); }

private:
    internal::byte_buffer buffer_{64};
};

/// @brief Bytes an image of @p w would take.
[[nodiscard]] std::size_t image_size(const world &w) noexcept;

/// @brief Saves @p w into @p out (reusing its buffer) tagged with @p frame.
void save(const world &w, world_image &out, std::uint64_t frame = 0);

/// @brief Saves @p w into a new snapshot.
[[nodiscard]] world_image save(const world &w, std::uint64_t frame = 0);

/**
 * @brief Restores @p w to the state saved in @p s: byte-identical state, including recycling
 * order, pool order, group state and resources; derived indices are rebuilt.
 *
 * This is the trusted path (the rollback ring, snapshots this process made): it checks the
 * header, the schema hash and the sizes, not the structure. For bytes from a file or the
 * network use `load_image`. On error @p w is unchanged.
 */
result<void> restore(world &w, const world_image &s);

/**
 * @brief Checks untrusted image bytes against @p w's schema: header, sizes, and an O(n)
 * structural validation (index ranges, free-list cycles, duplicate owners, group packing).
 */
result<void> validate_image(const world &w, std::span<const std::byte> image);

/// @brief validate_image, then restore. On error @p w is unchanged.
result<void> load_image(world &w, const world_image &s);

/// @brief The regions of a validated-size image, as views into its bytes.
struct image_view {
    image_header header{};
    std::span<const std::uint32_t> pool_counts;
    std::span<const std::uint32_t> element_sizes;
    std::span<const entity> entities{};
    std::vector<std::span<const entity>> owners{};
    std::vector<std::span<const std::byte>> payloads{};
    std::span<const std::uint32_t> group_lengths;
    std::span<const std::byte> resources{};
};

/**
 * @brief Splits @p image into its regions, checking the header and that every declared size
 * fits the bytes. If @p element_sizes is not empty (from a schema), the image's pool table
 * must match it.
 */
result<image_view> parse_image(std::span<const std::byte> image, std::span<const std::uint32_t> element_sizes = {});

/// @brief parse_image into a caller-owned view whose vectors are reused (no allocation once
/// they have grown to the pool count).
result<void> parse_image(std::span<const std::byte> image, std::span<const std::uint32_t> element_sizes,
                         image_view &out);

} // namespace retcon

#endif
