#ifndef RETCON_NET_SRC_SESSION_COMMON_HPP
#define RETCON_NET_SRC_SESSION_COMMON_HPP

// Pieces shared by the client and server sessions.
#include <retcon/config.hpp>
#include <retcon/net/protocol.hpp>
#include <retcon/net/session_config.hpp>
#include <retcon/net/stats.hpp>
#include <retcon/snapshot/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace retcon::internal {

/// @brief Which side a config is checked for: a client takes the match settings (player slots,
/// tick rate, input delays) from the server's welcome, so only the server's are checked.
enum class config_side : std::uint8_t { server, client };

/// @brief Reports a session_config outside what the protocol can carry (misuse, all builds).
inline void check_config(const session_config &c, config_side side = config_side::server) {
    if (side == config_side::server) {
        if (c.max_players == 0 || c.max_players > wire::limits::max_players)
            misuse("session_config: max_players %u is outside 1..%zu", static_cast<unsigned>(c.max_players),
                   wire::limits::max_players);
        if (c.tick_hz == 0) misuse("session_config: tick_hz must be positive");
        if (c.input_delay > wire::limits::max_input_delay)
            misuse("session_config: input_delay %u exceeds %zu frames", static_cast<unsigned>(c.input_delay),
                   wire::limits::max_input_delay);
        if (c.max_input_delay > wire::limits::max_input_delay)
            misuse("session_config: max_input_delay %u exceeds %zu frames", static_cast<unsigned>(c.max_input_delay),
                   wire::limits::max_input_delay);
    }
    if (c.input_size == 0 || c.input_size > wire::limits::max_input_size)
        misuse("session_config: input_size %u is outside 1..%zu", static_cast<unsigned>(c.input_size), wire::limits::max_input_size);
    if (c.prediction_window == 0 || c.prediction_window > 256)
        misuse("session_config: prediction_window %u is outside 1..256", c.prediction_window);
}

/// @brief Fixed-size records keyed by frame number in a power-of-two ring (no allocation after
/// reset). A slot remembers which frame it holds, so stale slots are never mistaken for new.
class frame_ring {
public:
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
    [[nodiscard]] bool has(frame_t frame) const noexcept { return frames_[frame & mask_] == frame; }
    [[nodiscard]] const std::byte *get(frame_t frame) const noexcept {
        return has(frame) ? bytes_.data() + (frame & mask_) * record_ : nullptr;
    }
    /// @brief The slot for @p frame, claimed (its previous frame is forgotten).
    std::byte *put(frame_t frame) noexcept {
        frames_[frame & mask_] = frame;
        return bytes_.data() + (frame & mask_) * record_;
    }
    void clear() noexcept { std::fill(frames_.begin(), frames_.end(), no_frame); }

private:
    std::size_t mask_ = 0;
    std::size_t record_ = 0;
    std::vector<std::byte> bytes_;
    std::vector<frame_t> frames_;
};

/// @brief Reassembles one snapshot transfer from chunks, refusing anything inconsistent.
class transfer_receiver {
public:
    explicit transfer_receiver(std::size_t max_bytes) : max_{max_bytes} {}
    /// @brief Adds a chunk; returns false if it is inconsistent with the transfer so far (the
    /// transfer is then abandoned). Chunks arrive in order (reliable channel).
    bool add(const wire::snapshot_chunk_msg &m) {
        if (m.total > max_ || m.total == 0) return false;
        if (m.offset == 0) {
            transfer_ = m.transfer;
            frame_ = m.frame;
            total_ = m.total;
            bytes_.clear();
            active_ = true;
        }
        if (!active_ || m.transfer != transfer_ || m.frame != frame_ || m.total != total_ || m.offset != bytes_.size())
            return active_ = false, false;
        bytes_.insert(bytes_.end(), m.bytes.begin(), m.bytes.end());
        return true;
    }
    [[nodiscard]] bool complete() const noexcept { return active_ && bytes_.size() == total_; }
    [[nodiscard]] frame_t frame() const noexcept { return frame_; }
    [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_; }
    void reset() noexcept { active_ = false; bytes_.clear(); }

private:
    std::size_t max_;
    std::uint32_t transfer_ = 0;
    frame_t frame_ = 0;
    std::uint32_t total_ = 0;
    bool active_ = false;
    std::vector<std::byte> bytes_;
};

/// @brief Splits @p file into snapshot chunks and hands each encoded chunk to @p send.
template<class Send>
void send_transfer(std::uint32_t transfer, frame_t frame, std::span<const std::byte> file, Send &&send) {
    wire::snapshot_chunk_msg m;
    m.transfer = transfer;
    m.frame = frame;
    m.total = static_cast<std::uint32_t>(file.size());
    std::vector<std::byte> out;
    for (std::size_t off = 0; off < file.size(); off += wire::limits::snapshot_chunk) {
        const std::size_t n = std::min<std::size_t>(wire::limits::snapshot_chunk, file.size() - off);
        m.offset = static_cast<std::uint32_t>(off);
        m.bytes.assign(file.begin() + static_cast<std::ptrdiff_t>(off), file.begin() + static_cast<std::ptrdiff_t>(off + n));
        wire::encode(m, out);
        send(std::span<const std::byte>(out));
    }
}

/// @brief Per-second rates from running totals, updated once a second.
class rate_meter {
public:
    void update(std::uint64_t now_ms, session_stats &s, std::uint64_t bytes_in, std::uint64_t bytes_out) {
        if (last_ms_ == 0) {
            last_ms_ = now_ms;
            return;
        }
        const std::uint64_t dt = now_ms - last_ms_;
        if (dt < 1000) return;
        const double secs = static_cast<double>(dt) / 1000.0;
        s.bytes_in_per_s = static_cast<double>(bytes_in - in_) / secs;
        s.bytes_out_per_s = static_cast<double>(bytes_out - out_) / secs;
        s.rollbacks_per_s = static_cast<double>(s.rollbacks - rollbacks_) / secs;
        s.resimulated_per_s = static_cast<double>(s.resimulated - resim_) / secs;
        in_ = bytes_in;
        out_ = bytes_out;
        rollbacks_ = s.rollbacks;
        resim_ = s.resimulated;
        last_ms_ = now_ms;
    }

private:
    std::uint64_t last_ms_ = 0, in_ = 0, out_ = 0, rollbacks_ = 0, resim_ = 0;
};

} // namespace retcon::internal

#endif
