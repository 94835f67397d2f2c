#ifndef RETCON_SNAPSHOT_SRC_KEYFRAME_DELTA_HPP
#define RETCON_SNAPSHOT_SRC_KEYFRAME_DELTA_HPP

// Delta keyframes of replay files (docs/file-format.md, "Delta keyframes"): a keyframe image
// XORed with the previous keyframe's, section by section, so that a pool that grew or shrank
// does not misalign the sections after it. Internal: never installed.
#include <cstddef>
#include <span>
#include <vector>

#include "image_layout.hpp"

namespace retcon::internal {

/**
 * @brief Encodes and decodes keyframe deltas. It keeps the two region lists it computes, so a
 * long-lived owner (a replay writer or reader) encodes and decodes without allocating once they
 * have grown to its pool count.
 */
class keyframe_delta {
public:
    /**
     * @brief @p out = @p current XOR @p previous, region by region: for each section, the first
     * min(length in current, length in previous) bytes are XORed, the rest copied.
     * @return false if the two images' layouts cannot be paired (a full keyframe must be written
     * instead); @p out is then unspecified.
     */
    bool encode(std::span<const std::byte> current, std::span<const std::byte> previous, std::vector<std::byte> &out);

    /**
     * @brief The inverse of encode: recovers the current image from @p delta and @p previous into
     * @p out, which must have `delta.size()` bytes. The header and pool table come first (XORed
     * with the previous image's), then the regions they describe.
     * @return false if @p previous is not a layout, or the decoded layout does not pair with it
     * or add up to `delta.size()` (a damaged or forged delta); @p out is then unspecified.
     */
    bool decode(std::span<const std::byte> delta, std::span<const std::byte> previous, std::span<std::byte> out);

private:
    std::vector<image_layout::region> current_;  ///< regions of the image being encoded or decoded
    std::vector<image_layout::region> previous_; ///< regions of the previous keyframe's image
};

} // namespace retcon::internal

#endif
