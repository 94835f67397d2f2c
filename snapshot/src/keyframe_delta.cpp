#include "keyframe_delta.hpp"

#include <algorithm>
#include <cstring>

namespace retcon::internal {

namespace {
/// XORs into @p out, for every region from @p first on, the bytes it has in common with the same
/// region of @p previous.
void xor_regions(std::span<const image_layout::region> out_regions, std::span<const image_layout::region> prev_regions,
                 std::size_t first, std::span<const std::byte> previous, std::span<std::byte> out) noexcept {
    for (std::size_t i = first; i < out_regions.size(); ++i) {
        const std::size_t n = std::min(out_regions[i].length, prev_regions[i].length);
        for (std::size_t k = 0; k < n; ++k) out[out_regions[i].offset + k] ^= previous[prev_regions[i].offset + k];
    }
}
} // namespace

bool keyframe_delta::encode(std::span<const std::byte> current, std::span<const std::byte> previous,
                            std::vector<std::byte> &out) {
    if (!image_layout::section_regions(current, current_) || !image_layout::section_regions(previous, previous_) ||
        current_.size() != previous_.size())
        return false;
    out.assign(current.begin(), current.end());
    xor_regions(current_, previous_, 0, previous, out);
    return true;
}

bool keyframe_delta::decode(std::span<const std::byte> delta, std::span<const std::byte> previous,
                            std::span<std::byte> out) {
    if (!image_layout::section_regions(previous, previous_)) return false;
    // Regions 0 and 1 (header and pool table) describe the rest: recover them first.
    const std::size_t head = previous_[0].length + previous_[1].length;
    if (delta.size() < head) return false;
    std::memcpy(out.data(), delta.data(), delta.size());
    for (std::size_t k = 0; k < head; ++k) out[k] ^= previous[k];
    if (!image_layout::section_regions(out, current_) || current_.size() != previous_.size()) return false;
    xor_regions(current_, previous_, 2, previous, out);
    return true;
}

} // namespace retcon::internal
