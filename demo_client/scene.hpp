#ifndef RETCON_DEMO_SCENE_HPP
#define RETCON_DEMO_SCENE_HPP
// What to draw of the demo's world, independent of how: the terminal and the window both draw a
// scene, never the world itself (docs/net.md, "Drawing between frames"). A scene is a copy: it
// is captured from the world after a tick and never writes to it, so drawing cannot change a hash.

#include <retcon/ecs/world.hpp>
#include <retcon_demo/game.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace retcon::demo {

/// @brief A ship: where it is (arena units), where it points, and who flies it.
struct scene_ship {
    std::uint64_t id = 0;    ///< the entity's handle (to_integral: 32 or 64 bits): the same ship across scenes
    float x = 0, y = 0;      ///< arena units, 0 ≤ x < width, 0 ≤ y < height
    float angle = 0;         ///< radians, 0 along +x, growing toward +y (the arena's y points down)
    std::uint8_t player = 0; ///< the player slot flying it
    bool blinking = false;   ///< invulnerable after a respawn and in the "off" half of its blink
    bool predicted = false;  ///< its player's input for the drawn frame is still a prediction
};

/// @brief An asteroid (size 3 big, 2 medium, 1 small).
struct scene_asteroid {
    std::uint64_t id = 0;
    float x = 0, y = 0, radius = 0;
    std::uint8_t size = 0;
};

/// @brief A bullet, a debris spark (kind 1) or a dust speck (kind 0).
struct scene_dot {
    std::uint64_t id = 0;
    float x = 0, y = 0;
    std::uint8_t kind = 0; ///< particles: 0 dust, 1 debris; bullets: the owner's slot
};

/// @brief One player slot's line of the score board.
struct scene_player {
    bool present = false;
    std::uint32_t score = 0;
};

/**
 * @brief Everything the demo draws of one simulation frame, sorted by entity id within each kind
 * (so two scenes pair their entities in one pass).
 */
struct scene {
    frame_t frame = 0;
    float width = 0, height = 0; ///< the arena, in its own units
    std::vector<scene_ship> ships;
    std::vector<scene_asteroid> asteroids;
    std::vector<scene_dot> bullets;
    std::vector<scene_dot> particles;
    std::array<scene_player, max_players> players{};
    std::uint32_t asteroids_destroyed = 0;
};

/// @brief Copies what there is to draw of @p w into @p out (reusing its storage).
void capture(const world &w, scene &out);

/**
 * @brief The scene a fraction @p t (0..1) of the way from @p from to @p to, into @p out: each
 * entity present in both moves along the straight line between its two places, or appears at its
 * place in @p to when it is new, or moved more than half the arena in a step (it wrapped around an
 * edge: a ship never streaks across the screen). Entities only in @p from are gone. Scores,
 * players and the frame are @p to's.
 */
void interpolate(const scene &from, const scene &to, float t, scene &out);

} // namespace retcon::demo

#endif
