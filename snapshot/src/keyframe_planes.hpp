#ifndef RETCON_SNAPSHOT_SRC_KEYFRAME_PLANES_HPP
#define RETCON_SNAPSHOT_SRC_KEYFRAME_PLANES_HPP

// The byte-plane keyframe codec of replay files (docs/file-format.md, "Keyframe codecs"). Before
// zstd, a full keyframe's fixed-width sections are rearranged so that zstd sees runs instead of
// bytes interleaved with noise:
//   - the entity table, each pool's owners and the group lengths are transposed into byte planes
//     (byte b of every element before byte b + 1 of any);
//   - each owner's version bits are XORed with those of its slot in the entity table (a valid
//     image's owners then hold their index alone: the version is said once, in the table);
//   - each pool's payload is transposed or left as it is, whichever zstd compresses better (a
//     field of few values, such as a velocity, compresses better whole; a position, whose low
//     bytes are noise, better in planes). A map of one byte per pool says which.
// Internal: never installed.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "zstd_codec.hpp"

namespace retcon::internal {

/**
 * @brief Encodes and decodes the raw payload of a `keyframe_codec::planes` keyframe: the pool map
 * (P bytes: 1 transposed, 0 as is), then the image, rearranged. It keeps its section list and
 * scratch buffers, so a long-lived owner (a replay sink or reader) does not allocate once warm.
 *
 * The layout is read from the image's own header and pool table, which are stored as they are,
 * as are the resources and all padding.
 */
class keyframe_planes {
public:
    /// @brief Bytes of the pool map in front of an image of @p pools pools.
    [[nodiscard]] static std::size_t map_bytes(std::size_t pools) noexcept { return pools; }

    /// @brief @p out = the map, then @p image rearranged; @p codec compresses the trial encodings
    /// that choose each pool's form. @return false if the image's header and pool table do not
    /// describe exactly `image.size()` bytes.
    bool encode(std::span<const std::byte> image, zstd_codec &codec, std::vector<std::byte> &out);
    /// @brief The inverse: @p out (of `payload.size() - map_bytes(pools)` bytes) = the image of
    /// @p pools pools (the schema's). @return false if the payload is not one `encode` could have written
    /// (a map byte other than 0 or 1, a layout that does not add up to `out.size()`); @p out is
    /// then unspecified.
    bool decode(std::span<const std::byte> payload, std::size_t pools, std::span<std::byte> out);

private:
    enum class form : std::uint8_t { planes, choice, owners };
    struct strip {
        std::size_t offset = 0; ///< where the section starts in the image
        std::size_t count = 0;  ///< elements
        std::size_t width = 0;  ///< bytes per element
        form kind = form::planes;
        std::uint32_t pool = 0;
    };
    /// Fills strips_ from the header and pool table at the start of @p image, for an image of
    /// @p total bytes; false if they do not add up. Sets table_ (the entity table's strip).
    bool strips_of(std::span<const std::byte> image, std::size_t total);
    std::vector<strip> strips_;
    strip table_{};
    std::vector<std::byte> trial_, packed_; // encode: a payload's two forms, compressed
};

} // namespace retcon::internal

#endif
