#ifndef RETCON_DEMO_NET_GRAPH_HPP
#define RETCON_DEMO_NET_GRAPH_HPP
// The net graph: a client session's per-frame telemetry (docs/net.md, "Telemetry") over the last
// seconds as small plots with their current values, and the session's events marked on the time
// axis (docs/net.md, "Reading the net graph").

#include <retcon/net/events.hpp>
#include <retcon/net/telemetry.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "canvas.hpp"

namespace retcon::demo {

/// @brief An event to mark on the graph's time axis.
struct net_graph_mark {
    frame_t frame = 0;
    session_event_kind kind = session_event_kind::connected;
};

/// @brief The graph's plots, top to bottom.
enum class net_plot : std::uint8_t {
    rollback,    ///< rollback depth per frame (bars)
    resimulated, ///< frames re-simulated per frame (bars)
    sim_time,    ///< µs re-simulating and stepping per frame (stacked bars) against the frame budget
    ahead,       ///< frames ahead of the server (line)
    rtt,         ///< round trip and jitter, ms (two lines)
    bytes,       ///< payload bytes sent and received per frame (two lines)
    replaced,    ///< frames whose input the server replaced (marks)
    stalls,      ///< frames with stalled ticks (marks)
    delay,       ///< input delay in frames (line)
};

/// @brief How many plots the graph has.
inline constexpr std::size_t net_plot_count = 9;

/// @brief A rectangle in drawable pixels.
struct pixel_rect {
    float x = 0, y = 0, w = 0, h = 0;
    /// @brief Whether (@p px, @p py) lies inside.
    [[nodiscard]] bool contains(float px, float py) const noexcept {
        return px >= x && py >= y && px < x + w && py < y + h;
    }
};

/**
 * @brief Where the graph puts things in the rectangle it is given: a pure function of the
 * rectangle and the pixel scale, so tests know where each plot is without reading pixels.
 */
struct net_graph_layout {
    pixel_rect panel;                                ///< the dark background (the whole rectangle)
    pixel_rect header;                               ///< title and frame budget
    std::array<pixel_rect, net_plot_count> labels{}; ///< each plot's label and current value
    std::array<pixel_rect, net_plot_count> plots{};  ///< each plot's data area (series only draw here)
    pixel_rect axis;                                 ///< under the plots: time axis and event legend
    int text_size = 11;                              ///< text size in points
    /// @brief Each value beside a short label (a small graph) rather than under its label.
    bool value_beside_label = false;
};

/// @brief The layout of a graph drawn in (@p x, @p y, @p w, @p h) on a canvas of @p pixel_scale
/// pixels a point (canvas::pixel_scale): text and padding grow with the scale.
[[nodiscard]] net_graph_layout layout_net_graph(float x, float y, float w, float h, float pixel_scale = 1) noexcept;

/// @brief Frames the x axis spans for @p frames_given entries: all of them, and at least two
/// seconds at @p tick_hz so a young session's few frames are not stretched over the whole width.
[[nodiscard]] std::size_t net_graph_columns(std::size_t frames_given, std::uint16_t tick_hz) noexcept;

/// @brief The horizontal centre of frame @p f's column in @p plot, or nothing when @p f is not
/// among @p frames (older than the first, newer than the last). Newest frame at the right.
[[nodiscard]] std::optional<float> net_graph_frame_x(const pixel_rect &plot, std::span<const frame_telemetry> frames,
                                                     frame_t f, std::uint16_t tick_hz) noexcept;

/// @brief The colour of @p plot's series @p series: 0, or 1 for the second series of three plots
/// (sim_time: stepping, under re-simulating; rtt: jitter; bytes: received). Tests look for these
/// in the plots; nothing else is drawn there in them.
[[nodiscard]] rgba net_plot_colour(net_plot plot, int series = 0) noexcept;

/// @brief Whether the graph marks events of @p kind, and in which colour (none: not shown).
[[nodiscard]] std::optional<rgba> net_mark_colour(session_event_kind kind) noexcept;

/// @brief The graph's panel: dark and semi-transparent, so the graph reads over the game.
inline constexpr rgba net_graph_panel{6, 8, 14, 200};

/**
 * @brief Draws telemetry as plots: rollback depth, frames re-simulated, time re-simulating and
 * stepping against the frame budget, frames ahead, RTT and jitter, bytes up and down, replaced
 * inputs, stalls and input delay; with desync, resync, join, leave, reconnect and interruption
 * events marked as vertical lines across the plots (docs/net.md, "Reading the net graph").
 */
class net_graph {
public:
    /// @brief At most this many marks are kept (the oldest go first).
    static constexpr std::size_t max_marks = 256;

    /// @brief Remembers @p ev to mark (the kinds the graph shows; others are ignored). Keeps the
    /// last max_marks marks.
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
