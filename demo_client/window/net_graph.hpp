#ifndef RETCON_DEMO_NET_GRAPH_HPP
#define RETCON_DEMO_NET_GRAPH_HPP
// The net graph: a client session's per-frame telemetry (docs/net.md, "Telemetry") over the last
// seconds as small plots with their current values, and the session's events marked on the time
// axis (docs/net.md, "Reading the net graph").

#include <retcon/net/events.hpp>
#include <retcon/net/telemetry.hpp>

#include <span>
#include <vector>

#include "canvas.hpp"

namespace retcon::demo {

/// @brief An event to mark on the graph's time axis.
struct net_graph_mark {
    frame_t frame = 0;
    session_event_kind kind = session_event_kind::connected;
};

/**
 * @brief Draws telemetry as plots: rollback depth, frames re-simulated, time re-simulating and
 * stepping against the frame budget, frames ahead, RTT and jitter, bytes up and down, replaced
 * inputs, stalls and input delay; with desync, resync, join and leave events marked.
 */
class net_graph {
public:
    /// @brief Remembers @p ev to mark (the kinds the graph shows; others are ignored). Keeps the
    /// last few hundred marks.
    void note(const session_event &ev);
    /// @brief Draws @p frames (oldest first, as client_session::telemetry copies them) in the
    /// rectangle (@p x, @p y, @p w, @p h) of @p c; @p tick_hz sets the frame budget.
    void draw(canvas &c, float x, float y, float w, float h, std::span<const frame_telemetry> frames,
              std::uint16_t tick_hz);
    /// @brief The marks kept, oldest first.
    [[nodiscard]] const std::vector<net_graph_mark> &marks() const noexcept { return marks_; }

private:
    std::vector<net_graph_mark> marks_;
};

} // namespace retcon::demo

#endif
