#ifndef RETCON_DEMO_REPLAY_VIEW_HPP
#define RETCON_DEMO_REPLAY_VIEW_HPP
// The replay viewer's picture (demo_client --window --replay): the arena, a seek bar along the
// bottom (the played part, a tick per keyframe, a handle at the current frame), a status line
// that says what has been verified, and above the bar a notice when the file was cut short. A function of the canvas, the scene, the player's status and
// the layout, so a test draws exactly what the window shows without running its loop.

#include <span>
#include <string>

#include "canvas.hpp"
#include "replay_player.hpp"
#include "scene.hpp"
#include "scene_painter.hpp"

namespace retcon::demo {

/// @brief Where the viewer's parts go in the drawable, in pixels, top to bottom.
struct replay_layout {
    float arena_x = 0, arena_y = 0, arena_w = 0, arena_h = 0; ///< the arena is fitted into this
    float notice_y = 0; ///< a line above the bar for what is wrong with the file ("file incomplete: ...")
    float bar_x = 0, bar_y = 0, bar_w = 0, bar_h = 0; ///< the seek bar
    float status_y = 0;                               ///< the status line's top
    float help_y = 0;                                 ///< the keys line's top
    float badge = 0; ///< side of the square before the verdict (green verified, red mismatch)

    /// @brief The pixel column of @p frame on the bar (start at its left end, end at its right).
    [[nodiscard]] float bar_x_of(const replay_status &s, frame_t frame) const noexcept;
    /// @brief The frame under pixel column @p x of the bar (clamped to [start, end]).
    [[nodiscard]] frame_t frame_at(const replay_status &s, float x) const noexcept;
    /// @brief Whether a click at (@p x, @p y) pixels seeks (on the bar, or a few pixels off it).
    [[nodiscard]] bool on_bar(float x, float y) const noexcept;
};

/// @brief The layout of a drawable of @p width × @p height pixels whose text lines are
/// @p line_height pixels tall and whose points are @p pixel_scale pixels (HiDPI).
replay_layout layout_replay(float width, float height, float line_height, float pixel_scale = 1) noexcept;

/// @brief Where the arena of @p s lands within @p layout.
arena_view arena_of(const replay_layout &layout, const scene &s) noexcept;

/// @brief The status line's words: what the viewer says, as data (tests read it).
struct replay_status_text {
    std::string position;   ///< "frame N / END   speed x1   paused"
    std::string verdict;    ///< "verified N frames" or "MISMATCH at frame F (K frames differ)"
    bool mismatch = false;  ///< the verdict is a mismatch (drawn in red)
    std::string incomplete; ///< "file incomplete: <note>" when the file was cut; else empty
};

/// @brief What the status line says for @p s.
replay_status_text describe(const replay_status &s);

/// @brief The viewer's colours beyond the painter's (tests look for them).
namespace replay_palette {
inline constexpr rgba bar{32, 36, 52};
inline constexpr rgba played{60, 95, 150};
inline constexpr rgba keyframe{150, 155, 175};
inline constexpr rgba handle{250, 250, 250};
inline constexpr rgba verified{90, 210, 110};
inline constexpr rgba mismatch{240, 50, 50};
inline constexpr rgba incomplete{240, 170, 50};
} // namespace replay_palette

/// @brief Draws the whole viewer into @p c (clearing it first): @p s in the arena, the seek bar
/// with a tick at each of @p keyframes, the notice, the status line and the keys.
void draw_replay(canvas &c, const scene &s, const replay_status &status, std::span<const frame_t> keyframes,
                 const replay_layout &layout);

} // namespace retcon::demo

#endif
