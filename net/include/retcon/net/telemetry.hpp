#ifndef RETCON_NET_TELEMETRY_HPP
#define RETCON_NET_TELEMETRY_HPP

#include <cstdint>

#include <retcon/ecs/frame.hpp>

namespace retcon {

/**
 * @brief The clock telemetry times the tick with: a plain function pointer and its context, so
 * keeping it allocates nothing and a test can make every figure exact (docs/net.md, "Telemetry").
 *
 * @code
 * std::uint64_t fake_us = 0;
 * opts.telemetry.clock = {[](void *c) { return *static_cast<std::uint64_t *>(c); }, &fake_us};
 * @endcode
 */
struct telemetry_clock {
    /// @brief Microseconds on any monotonic clock, given @p context. Null: `std::chrono::steady_clock`.
    std::uint64_t (*now_us)(void *context) = nullptr;
    void *context = nullptr; ///< passed to now_us
};

/// @brief Whether a session keeps telemetry, how much, and what it times it with.
struct telemetry_options {
    /// @brief Frames kept (10 s at 60 Hz by default); the ring is allocated when the session is
    /// constructed. 0: no telemetry (nothing is kept, the clock is never read).
    std::uint32_t frames = 600;
    telemetry_clock clock{}; ///< what the µs figures are measured with
};

/**
 * @brief What a client session did on one frame (docs/net.md, "Telemetry").
 *
 * An entry is keyed by the frame the tick simulates for the first time (the session's
 * `current_frame()` when the tick starts): ticks that stall on that frame add to the same entry,
 * and facts learnt later — the server confirmed the frame, replaced this player's input for it,
 * or its hash was computed for the server to compare — update it in place while it is still in
 * the ring. A frame simulated again after a resynchronisation starts a fresh entry.
 */
struct frame_telemetry {
    frame_t frame = no_frame; ///< the frame this entry describes
    /// @brief Frames rolled back by the deepest rollback that started on this frame's ticks (the
    /// tick's frame minus the first frame restored; 0: none).
    std::uint32_t rollback_depth = 0;
    std::uint32_t resimulated = 0;   ///< frames re-simulated by this frame's ticks (all of them)
    std::uint32_t resimulate_us = 0; ///< time spent re-simulating them, µs (the telemetry clock)
    std::uint32_t step_us = 0;       ///< time spent stepping this frame itself, µs (the telemetry clock)
    std::uint32_t stalls = 0;        ///< ticks refused on this frame (the prediction window was full)
    std::uint32_t bytes_in = 0;      ///< payload bytes received since the previous tick (to this frame's last)
    std::uint32_t bytes_out = 0;     ///< payload bytes sent since the previous tick (to this frame's last)
    float frames_ahead = 0;          ///< frames ahead of the server's estimated frame, as of the tick
    float rtt_ms = 0;                ///< smoothed round trip to the server, as of the tick
    float jitter_ms = 0;             ///< smoothed round-trip variation, as of the tick
    std::uint8_t input_delay = 0;    ///< this player's input delay in frames, as of the tick
    bool input_replaced = false;     ///< the server substituted this player's input for this frame
    bool confirmed = false;          ///< every player's input for this frame is confirmed
    bool hash_checked = false;       ///< the world hash after this frame was computed for the server to compare
};

/**
 * @brief What one server tick cost and carried (docs/net.md, "Telemetry"). Server frames are
 * confirmed as they are simulated, so an entry is complete when its tick returns.
 */
struct server_frame_telemetry {
    frame_t frame = no_frame;          ///< the frame this tick confirmed
    std::uint32_t tick_us = 0;         ///< the whole tick (confirm, step, hash, record, send), µs
    std::uint32_t step_us = 0;         ///< the step alone, µs (the telemetry clock)
    std::uint32_t replaced_inputs = 0; ///< occupied slots whose input the server substituted
    std::uint32_t bytes_in = 0;        ///< payload bytes received from all clients since the previous tick
    std::uint32_t bytes_out = 0; ///< payload bytes sent to all clients since the previous tick (to this one's end)
    std::uint8_t players = 0;    ///< occupied player slots
};

/**
 * @brief What the server measured of one player slot's client on one frame (docs/net.md,
 * "Telemetry").
 */
struct server_client_telemetry {
    frame_t frame = no_frame;    ///< the frame the server confirmed
    std::int32_t margin_ms = 0;  ///< how early this client's inputs arrive (low percentile), as of the tick
    float rtt_ms = 0;            ///< the server's smoothed round trip to the client, as of the tick
    std::uint32_t bytes_in = 0;  ///< payload bytes received from the client since the previous tick
    std::uint32_t bytes_out = 0; ///< payload bytes sent to the client since the previous tick (to this one's end)
    bool present = false;        ///< a connected player held the slot
    bool input_replaced = false; ///< the server substituted the slot's input for this frame
};

} // namespace retcon

#endif
