#ifndef RETCON_NET_SRC_CONFIRMED_STREAM_HPP
#define RETCON_NET_SRC_CONFIRMED_STREAM_HPP

#include <retcon/ecs/frame.hpp>
#include <retcon/net/protocol.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "frame_ring.hpp"
#include "server_connection.hpp"

namespace retcon::internal {

/**
 * @brief The server's confirmed stream (docs/net.md, "The model"; docs/protocol.md,
 * message 5 `confirmed`): the confirmed record of each recent frame, kept for resending, and the
 * `confirmed` message that carries a run of them to one client, redundantly until it
 * acknowledges them, coded against the frame before the run when the client has it. No
 * allocation after `reset`.
 */
class confirmed_stream {
public:
    /// @brief Records of @p players slots of @p input_size bytes, at least @p history_frames of
    /// them (and never fewer than two packets' worth).
    void reset(std::size_t players, std::size_t input_size, std::size_t history_frames) {
        players_ = players;
        isz_ = input_size;
        rec_ = frame_inputs::record_size(players, input_size);
        history_.reset(std::max<std::size_t>(history_frames, 2u * wire::limits::max_frames_per_packet), rec_);
        msg_.frames.reserve(wire::limits::max_frames_per_packet * rec_);
        // Keep every packet under the MTU-sized limit even if the coding doubles the bytes.
        max_frames_ = static_cast<std::uint32_t>(std::clamp<std::size_t>((wire::limits::max_packet - 64u) / (2u * rec_),
                                                                         1u, wire::limits::max_frames_per_packet));
    }

    /// @brief The record of @p frame, to fill (flags then inputs).
    std::byte *put(frame_t frame) noexcept { return history_.put(frame); }
    /// @brief The confirmed records kept (desync forensics rebuilds frames from them).
    [[nodiscard]] const frame_ring &history() const noexcept { return history_; }
    /// @brief Frames one message carries at most.
    [[nodiscard]] std::uint32_t max_frames_per_packet() const noexcept { return max_frames_; }

    /// @brief True when a client that lacks the frames from @p first on, at server frame
    /// @p next_frame, is hopelessly behind: they are (nearly) gone from the history, and only a
    /// snapshot brings it back.
    [[nodiscard]] bool hopeless(frame_t first, frame_t next_frame) const noexcept {
        return next_frame - first + 8u > history_.capacity();
    }

    /**
     * @brief Codes into @p out the `confirmed` message for @p c: the frames from @p first on
     * (at most a packet's worth) up to @p next_frame, @p ack_input (the first of its inputs the
     * server lacks), its arrival margin and clock echo at @p now_ms. Counts the message in its
     * statistics.
     */
    void encode(server_connection &c, frame_t first, frame_t next_frame, frame_t ack_input, std::uint64_t now_ms,
                std::vector<std::byte> &out) {
        const std::uint32_t count = std::min<std::uint32_t>(next_frame - first, max_frames_);
        msg_.first_frame = first;
        msg_.count = static_cast<std::uint8_t>(count);
        msg_.players = static_cast<std::uint8_t>(players_);
        msg_.server_frame = next_frame;
        msg_.base = first > c.sync_frame() && history_.has(first - 1u) ? 1 : 0;
        msg_.frames.clear();
        for (std::uint32_t k = 0; k < count; ++k) {
            const std::byte *r = history_.get(first + k);
            msg_.frames.insert(msg_.frames.end(), r, r + rec_);
        }
        msg_.ack_input = ack_input;
        msg_.margin_ms = c.note_broadcast(next_frame);
        msg_.echo_time_ms = c.echo_time();
        msg_.hold_ms = c.hold_ms(now_ms);
        const std::byte *base = msg_.base ? history_.get(first - 1u) : nullptr;
        wire::encode(msg_, isz_, base ? std::span<const std::byte>(base, rec_) : std::span<const std::byte>{}, out);
    }

private:
    std::size_t players_ = 0, isz_ = 0, rec_ = 0;
    std::uint32_t max_frames_ = 1;
    frame_ring history_;
    wire::confirmed_msg msg_;
};

} // namespace retcon::internal

#endif
