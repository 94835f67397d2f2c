#include <retcon/snapshot/ring.hpp>

#include <cstring>
#include <string>

namespace retcon {

snapshot_ring::snapshot_ring(std::size_t capacity) : slots_(capacity == 0 ? 1 : capacity) {}

void snapshot_ring::save(const world &w, frame_t frame) {
    slot &s = slots_[frame % slots_.size()];
    retcon::save(w, s.image, frame);
    s.frame = frame;
    s.valid = true;
}

result<void> snapshot_ring::restore(world &w, frame_t frame) {
    const slot &s = slots_[frame % slots_.size()];
    if (!s.valid || s.frame != frame) {
        std::string held = "nothing";
        if (auto lo = oldest()) held = "frames " + std::to_string(*lo) + ".." + std::to_string(*newest());
        return {errc::not_found, "snapshot ring: frame " + std::to_string(frame) + " is not held (" + held + ")"};
    }
    if (auto r = retcon::restore(w, s.image); !r) return r;
    for (slot &other : slots_)
        if (other.valid && other.frame > frame) {
            other.valid = false;
#ifndef NDEBUG
            // Debug builds make the discarded future unreadable rather than silently stale.
            if (!other.image.empty()) std::memset(other.image.prepare(other.image.size()), 0xA5, other.image.size());
#endif
        }
    return {};
}

bool snapshot_ring::contains(frame_t frame) const noexcept { return find(frame) != nullptr; }

const world_image *snapshot_ring::find(frame_t frame) const noexcept {
    const slot &s = slots_[frame % slots_.size()];
    return s.valid && s.frame == frame ? &s.image : nullptr;
}

std::optional<frame_t> snapshot_ring::oldest() const noexcept {
    std::optional<frame_t> r;
    for (const slot &s : slots_)
        if (s.valid && (!r || s.frame < *r)) r = s.frame;
    return r;
}

std::optional<frame_t> snapshot_ring::newest() const noexcept {
    std::optional<frame_t> r;
    for (const slot &s : slots_)
        if (s.valid && (!r || s.frame > *r)) r = s.frame;
    return r;
}

std::size_t snapshot_ring::size() const noexcept {
    std::size_t n = 0;
    for (const slot &s : slots_) n += s.valid ? 1u : 0u;
    return n;
}

void snapshot_ring::clear() noexcept {
    for (slot &s : slots_) s.valid = false;
}

std::size_t snapshot_ring::memory() const noexcept {
    std::size_t n = 0;
    for (const slot &s : slots_) n += s.image.capacity();
    return n;
}

} // namespace retcon
