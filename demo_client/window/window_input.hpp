#ifndef RETCON_DEMO_WINDOW_INPUT_HPP
#define RETCON_DEMO_WINDOW_INPUT_HPP
// The window's controls: which keys and game-controller parts steer the ship. Reading SDL's
// state (held keys, the controller's sticks and buttons) gives a plain snapshot; mapping the
// snapshot to the game's input is a pure function, so both are tested apart.

#include <retcon_demo/game.hpp>

#include <cstdint>

struct _SDL_GameController;

namespace retcon::demo {

/// @brief What the keyboard and a game controller hold at one moment.
struct input_snapshot {
    // The keyboard (held keys, as SDL_GetKeyboardState reports them).
    bool key_left = false;   ///< Left arrow or A
    bool key_right = false;  ///< Right arrow or D
    bool key_thrust = false; ///< Up arrow or W
    bool key_fire = false;   ///< Space
    // A game controller (SDL's game controller API: the same names on every make of pad).
    float stick_x = 0; ///< left stick, -1 (left) .. 1 (right)
    bool dpad_left = false, dpad_right = false;
    bool button_a = false, button_b = false, button_x = false;
    float right_trigger = 0; ///< 0 .. 1
};

/// @brief How far the stick must lean before it turns the ship (a resting stick drifts).
inline constexpr float stick_dead_zone = 0.35f;
/// @brief How far the right trigger must be pulled to thrust.
inline constexpr float trigger_threshold = 0.3f;

/**
 * @brief The game's input for @p in: turn left with Left/A, the stick leaning left or the
 * d-pad's left (right likewise; both at once cancel), thrust with Up/W, the A button or the
 * right trigger, fire with Space, B or X.
 */
[[nodiscard]] player_input map_input(const input_snapshot &in) noexcept;

/// @brief Reads the held keys (SDL_GetKeyboardState) and @p controller (null: none) into a
/// snapshot. SDL's event queue must have been pumped since the last change (SDL_PollEvent).
[[nodiscard]] input_snapshot read_input(_SDL_GameController *controller) noexcept;

} // namespace retcon::demo

#endif
