#ifndef RETCON_DEMO_SCENE_PAINTER_HPP
#define RETCON_DEMO_SCENE_PAINTER_HPP
// Draws a scene (scene.hpp) in a canvas as vector lines: the arena's border, dust and debris as
// dots, asteroids as jagged outlines, bullets as short strokes, ships as filled arrowheads in
// their player's colour. The arena is scaled to fit the area it is given, keeping its shape.

#include "canvas.hpp"
#include "scene.hpp"

namespace retcon::demo {

/// @brief Where the arena lands in the drawable: a uniform scale and an offset.
struct arena_view {
    float scale = 1;             ///< pixels per arena unit
    float left = 0, top = 0;     ///< the arena's (0, 0), in pixels
    float width = 0, height = 0; ///< the arena's size, in pixels
    /// @brief Arena units to drawable pixels.
    [[nodiscard]] point to_pixels(float x, float y) const noexcept { return {left + x * scale, top + y * scale}; }
};

/// @brief The largest view of an arena of @p arena_w × @p arena_h units that fits in the
/// rectangle (@p x, @p y, @p w, @p h) of pixels, centred, keeping the arena's shape.
arena_view fit(float arena_w, float arena_h, float x, float y, float w, float h) noexcept;

/// @brief Colours the painter uses (tests look for them).
namespace palette {
inline constexpr rgba background{8, 10, 18};
inline constexpr rgba border{70, 80, 110};
inline constexpr rgba asteroid{170, 160, 150};
inline constexpr rgba dust{55, 60, 75};
inline constexpr rgba debris{230, 170, 60};
inline constexpr rgba text{210, 215, 230};
inline constexpr rgba dim_text{130, 135, 150};
/// @brief Player @p slot's colour (ships, bullets, score lines).
rgba player(int slot) noexcept;
/// @brief A predicted player's ship, when predictions are shown.
inline constexpr rgba predicted{255, 255, 255};
} // namespace palette

/// @brief What to show beyond the scene itself.
struct paint_options {
    int my_slot = -1;            ///< this player's slot, outlined (-1: a spectator or a replay)
    bool show_predicted = false; ///< draw ships whose input is still predicted in white
};

/// @brief Draws @p s into @p view of @p c (the border, then dust, debris, asteroids, bullets and
/// ships, ships last so nothing covers them).
void paint(canvas &c, const scene &s, const arena_view &view, const paint_options &options = {});

/// @brief Whether the painter draws the dust speck @p id: a third of them, by entity index (the
/// simulation keeps thousands for realistic snapshot work; the eye needs fewer, and the same ones).
[[nodiscard]] bool draws_dust(std::uint64_t id) noexcept;

/// @brief The ship's arrowhead outline (nose, left wing, notch, right wing) in pixels: the painter
/// fills it, tests find the ship's colour at its centre.
std::array<point, 4> ship_outline(const scene_ship &ship, const arena_view &view) noexcept;

} // namespace retcon::demo

#endif
