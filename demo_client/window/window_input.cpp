#include "window_input.hpp"

#include <SDL.h>

namespace retcon::demo {

player_input map_input(const input_snapshot &in) noexcept {
    const bool left = in.key_left || in.dpad_left || in.stick_x <= -stick_dead_zone;
    const bool right = in.key_right || in.dpad_right || in.stick_x >= stick_dead_zone;
    player_input out{};
    if (left != right) out.turn = left ? 1 : 2; // both held: they cancel, as on a pad's d-pad
    out.thrust = in.key_thrust || in.button_a || in.right_trigger >= trigger_threshold ? 1 : 0;
    out.fire = in.key_fire || in.button_b || in.button_x ? 1 : 0;
    return out;
}

namespace {

float axis(SDL_GameController *c, SDL_GameControllerAxis a) noexcept {
    return static_cast<float>(SDL_GameControllerGetAxis(c, a)) / 32767.0f; // -32768 .. 32767
}

bool button(SDL_GameController *c, SDL_GameControllerButton b) noexcept {
    return SDL_GameControllerGetButton(c, b) != 0;
}

} // namespace

input_snapshot read_input(SDL_GameController *controller) noexcept {
    input_snapshot s;
    int count = 0;
    const Uint8 *keys = SDL_GetKeyboardState(&count);
    const auto held = [&](SDL_Scancode k) { return keys != nullptr && k < count && keys[k] != 0; };
    s.key_left = held(SDL_SCANCODE_LEFT) || held(SDL_SCANCODE_A);
    s.key_right = held(SDL_SCANCODE_RIGHT) || held(SDL_SCANCODE_D);
    s.key_thrust = held(SDL_SCANCODE_UP) || held(SDL_SCANCODE_W);
    s.key_fire = held(SDL_SCANCODE_SPACE);
    if (controller != nullptr) {
        s.stick_x = axis(controller, SDL_CONTROLLER_AXIS_LEFTX);
        s.right_trigger = axis(controller, SDL_CONTROLLER_AXIS_TRIGGERRIGHT);
        s.dpad_left = button(controller, SDL_CONTROLLER_BUTTON_DPAD_LEFT);
        s.dpad_right = button(controller, SDL_CONTROLLER_BUTTON_DPAD_RIGHT);
        s.button_a = button(controller, SDL_CONTROLLER_BUTTON_A);
        s.button_b = button(controller, SDL_CONTROLLER_BUTTON_B);
        s.button_x = button(controller, SDL_CONTROLLER_BUTTON_X);
    }
    return s;
}

} // namespace retcon::demo
