#ifndef RETCON_NET_SRC_FRAME_RING_HPP
#define RETCON_NET_SRC_FRAME_RING_HPP

#include <retcon/ecs/frame.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace retcon::internal {

/// @brief Fixed-size records keyed by frame number in a power-of-two ring: the storage under
/// the input queue, the server's input history and its recorded hashes. No allocation after
/// `reset`. A slot remembers which frame it holds, so a stale slot is never mistaken for a new
/// frame (docs/net.md, "The model").
class frame_ring {
public:
    /// @brief At least @p capacity records (rounded up to a power of two) of @p record_size
    /// bytes, all empty.
    void reset(std::size_t capacity, std::size_t record_size) {
        std::size_t cap = 1;
        while (cap < capacity) cap <<= 1u;
        mask_ = cap - 1u;
        record_ = record_size;
        bytes_.assign(cap * record_size, std::byte{0});
        frames_.assign(cap, no_frame);
    }
    [[nodiscard]] std::size_t capacity() const noexcept { return mask_ + 1u; }
    [[nodiscard]] std::size_t record_size() const noexcept { return record_; }
    /// @brief True if the ring holds @p frame's record (not an older frame in the same slot).
    /// `no_frame` (the mark of an empty slot) is never held.
    [[nodiscard]] bool has(frame_t frame) const noexcept {
        return frame != no_frame && !frames_.empty() && frames_[frame & mask_] == frame;
    }
    /// @brief @p frame's record, or null if the ring does not hold it.
    [[nodiscard]] const std::byte *get(frame_t frame) const noexcept {
        return has(frame) ? bytes_.data() + (frame & mask_) * record_ : nullptr;
    }
    /// @brief The slot for @p frame, claimed (its previous frame is forgotten); contents are
    /// whatever the slot held.
    std::byte *put(frame_t frame) noexcept {
        frames_[frame & mask_] = frame;
        return bytes_.data() + (frame & mask_) * record_;
    }
    /// @brief Forgets every frame (capacity and record size are kept).
    void clear() noexcept { std::fill(frames_.begin(), frames_.end(), no_frame); }

private:
    std::size_t mask_ = 0;
    std::size_t record_ = 0;
    std::vector<std::byte> bytes_;
    std::vector<frame_t> frames_;
};

} // namespace retcon::internal

#endif
