#ifndef RETCON_NET_SRC_TELEMETRY_RING_HPP
#define RETCON_NET_SRC_TELEMETRY_RING_HPP

#include <retcon/ecs/frame.hpp>
#include <retcon/net/telemetry.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace retcon::internal {

/// @brief Microseconds on @p clock (steady_clock when it has no function).
inline std::uint64_t telemetry_now_us(const telemetry_clock &clock) noexcept {
    if (clock.now_us) return clock.now_us(clock.context);
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count());
}

/// @brief A duration between two readings of a telemetry clock, in µs, saturated to 32 bits
/// (a clock that steps back gives 0).
inline std::uint32_t telemetry_span_us(std::uint64_t from, std::uint64_t to) noexcept {
    if (to <= from) return 0;
    const std::uint64_t d = to - from;
    return d > 0xffffffffu ? 0xffffffffu : static_cast<std::uint32_t>(d);
}

/// @brief A 64-bit running total's growth since @p last, saturated to 32 bits; @p last moves on.
inline std::uint32_t telemetry_delta(std::uint64_t total, std::uint64_t &last) noexcept {
    const std::uint64_t d = total >= last ? total - last : 0;
    last = total;
    return d > 0xffffffffu ? 0xffffffffu : static_cast<std::uint32_t>(d);
}

/**
 * @brief The last N frames of one telemetry record type (`frame_telemetry`, ...), keyed by
 * frame: the storage under every session's telemetry (docs/net.md, "Telemetry"). All memory is
 * taken by `reset`; `open`, `find` and `read` allocate nothing.
 *
 * The newest frame opened defines the window: frames newest - N + 1 .. newest. Entry i of the
 * window lives in slot frame % N and remembers its frame, so an entry of a frame that left the
 * window, or of a frame above the newest (after a session went back to an earlier frame), is
 * never read as another frame's.
 */
template<class Entry>
class telemetry_ring {
public:
    /// @brief Room for @p frames entries (0: nothing is kept), all empty.
    void reset(std::size_t frames) {
        entries_.assign(frames, Entry{});
        newest_ = no_frame;
    }
    /// @brief Frames the ring holds at most.
    [[nodiscard]] std::size_t capacity() const noexcept { return entries_.size(); }
    /// @brief False when the ring keeps nothing (0 frames).
    [[nodiscard]] bool enabled() const noexcept { return !entries_.empty(); }

    /**
     * @brief The entry of @p frame, to fill, which becomes the newest: the one already there if
     * @p frame is the newest (a later tick on the same frame adds to it), else a fresh one
     * (default values, its frame set) in place of whatever the slot held. Null when disabled.
     */
    Entry *open(frame_t frame) noexcept {
        if (entries_.empty() || frame == no_frame) return nullptr;
        Entry &e = entries_[frame % entries_.size()];
        if (frame != newest_ || e.frame != frame) {
            e = Entry{};
            e.frame = frame;
        }
        newest_ = frame;
        return &e;
    }

    /// @brief The entry of @p frame if the window still holds it (to update after the fact),
    /// else null.
    [[nodiscard]] Entry *find(frame_t frame) noexcept {
        if (entries_.empty() || newest_ == no_frame || frame == no_frame || frame > newest_ ||
            newest_ - frame >= entries_.size())
            return nullptr;
        Entry &e = entries_[frame % entries_.size()];
        return e.frame == frame ? &e : nullptr;
    }

    /// @brief Copies the entries of the window into @p out, oldest first, and returns how many:
    /// all of them if @p out has room for `capacity()`, else the newest `out.size()`.
    std::size_t read(std::span<Entry> out) const noexcept {
        if (entries_.empty() || newest_ == no_frame || out.empty()) return 0;
        const std::size_t n = entries_.size();
        const frame_t first = newest_ >= n - 1u ? static_cast<frame_t>(newest_ - (n - 1u)) : frame_t{0};
        // Count the held entries first, so the copy can skip the oldest ones that do not fit.
        std::size_t held = 0;
        for (frame_t f = first;; ++f) {
            held += entries_[f % n].frame == f ? 1u : 0u;
            if (f == newest_) break;
        }
        std::size_t skip = held > out.size() ? held - out.size() : 0;
        std::size_t written = 0;
        for (frame_t f = first;; ++f) {
            const Entry &e = entries_[f % n];
            if (e.frame == f) {
                if (skip > 0) --skip;
                else
                    out[written++] = e;
            }
            if (f == newest_) break;
        }
        return written;
    }

private:
    std::vector<Entry> entries_;
    frame_t newest_ = no_frame;
};

} // namespace retcon::internal

#endif
