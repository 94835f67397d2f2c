#ifndef RETCON_NET_STATS_HPP
#define RETCON_NET_STATS_HPP

#include <cstdint>

#include <retcon/ecs/frame.hpp>

namespace retcon {

/// @brief Network and rollback figures of one session (client) or one client (server side).
struct session_stats {
    double rtt_ms = 0;       ///< smoothed round-trip time
    double jitter_ms = 0;    ///< smoothed round-trip variation
    double loss = 0;         ///< fraction of confirmed-input packets that never arrived
    double frames_ahead = 0; ///< client frame minus the server frame it estimates
    double rollbacks_per_s = 0;
    double resimulated_per_s = 0;
    double bytes_in_per_s = 0; ///< payload bytes (no UDP/ENet headers)
    double bytes_out_per_s = 0;
    std::uint64_t rollbacks = 0; ///< totals since the start
    std::uint64_t resimulated = 0;
    std::uint64_t stall_frames = 0;    ///< ticks refused because the prediction window was full
    std::uint64_t replaced_inputs = 0; ///< server: this client's inputs it had to substitute
    std::uint64_t confirmed_frames = 0;
    /// @brief Desyncs: client, the server's desync notices; server, verified ones only (the
    /// client's uploaded snapshot differs from the server's, docs/net.md, "Desync forensics").
    std::uint64_t desyncs = 0;
    /// @brief Server: checksum mismatches a client reported that no upload verified.
    std::uint64_t unverified_desyncs = 0;
    std::int32_t margin_ms = 0;    ///< how early inputs reach the server (low percentile)
    std::uint32_t input_delay = 0; ///< client: current input delay in frames
    frame_t current_frame = 0;
    frame_t confirmed_frame = 0; ///< every frame below this is confirmed
};

} // namespace retcon

#endif
