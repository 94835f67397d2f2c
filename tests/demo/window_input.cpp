// The window's controls: the mapping from held keys and a game controller to the game's input,
// and a controller read through SDL's game controller API (a virtual one SDL emulates, so no
// hardware and no display are needed).
#include <catch2/catch.hpp>

#include <SDL.h>

#include "window_input.hpp"

using namespace retcon::demo;

namespace {

bool same(const player_input &a, int turn, int thrust, int fire) {
    return a.turn == turn && a.thrust == thrust && a.fire == fire;
}

} // namespace

TEST_CASE("window input: nothing held is no input", "[window_input]") { CHECK(same(map_input({}), 0, 0, 0)); }

TEST_CASE("window input: keys turn, thrust and fire, and opposite turns cancel", "[window_input]") {
    input_snapshot in;
    in.key_left = true;
    CHECK(same(map_input(in), 1, 0, 0));
    in.key_right = true;
    CHECK(same(map_input(in), 0, 0, 0));
    in.key_left = false;
    in.key_thrust = true;
    in.key_fire = true;
    CHECK(same(map_input(in), 2, 1, 1));
}

TEST_CASE("window input: the stick turns past its dead zone, the trigger thrusts past its threshold",
          "[window_input]") {
    input_snapshot in;
    in.stick_x = -stick_dead_zone / 2; // a resting stick's drift
    in.right_trigger = trigger_threshold / 2;
    CHECK(same(map_input(in), 0, 0, 0));
    in.stick_x = -0.9f;
    CHECK(same(map_input(in), 1, 0, 0));
    in.stick_x = 0.9f;
    in.right_trigger = 1;
    CHECK(same(map_input(in), 2, 1, 0));
}

TEST_CASE("window input: d-pad turns, A thrusts, B and X fire", "[window_input]") {
    input_snapshot in;
    in.dpad_left = true;
    in.button_a = true;
    CHECK(same(map_input(in), 1, 1, 0));
    in = {};
    in.dpad_right = true;
    in.button_b = true;
    CHECK(same(map_input(in), 2, 0, 1));
    in = {};
    in.button_x = true;
    CHECK(same(map_input(in), 0, 0, 1));
}

TEST_CASE("window input: a game controller (SDL's virtual one) steers through read_input", "[window_input]") {
    REQUIRE(SDL_InitSubSystem(SDL_INIT_GAMECONTROLLER) == 0);
    SDL_VirtualJoystickDesc desc{};
    desc.version = SDL_VIRTUAL_JOYSTICK_DESC_VERSION;
    desc.type = SDL_JOYSTICK_TYPE_GAMECONTROLLER; // SDL maps its buttons and axes to a game controller's
    desc.naxes = SDL_CONTROLLER_AXIS_MAX;
    desc.nbuttons = SDL_CONTROLLER_BUTTON_MAX;
    desc.name = "retcon test pad";
    const int index = SDL_JoystickAttachVirtualEx(&desc);
    REQUIRE(index >= 0);
    REQUIRE(SDL_IsGameController(index));
    SDL_GameController *pad = SDL_GameControllerOpen(index);
    REQUIRE(pad != nullptr);
    SDL_Joystick *stick = SDL_GameControllerGetJoystick(pad);
    const auto set_axis = [&](SDL_GameControllerAxis a, Sint16 value) {
        REQUIRE(SDL_JoystickSetVirtualAxis(stick, a, value) == 0);
    };
    const auto set_button = [&](SDL_GameControllerButton b, bool down) {
        REQUIRE(SDL_JoystickSetVirtualButton(stick, b, down ? 1 : 0) == 0);
    };
    const auto read = [&] {
        SDL_GameControllerUpdate(); // what SDL_PollEvent does in the window's loop
        return map_input(read_input(pad));
    };

    CHECK(same(read(), 0, 0, 0));
    set_axis(SDL_CONTROLLER_AXIS_LEFTX, -32768);
    CHECK(same(read(), 1, 0, 0));
    set_axis(SDL_CONTROLLER_AXIS_LEFTX, 3000); // inside the dead zone
    CHECK(same(read(), 0, 0, 0));
    set_axis(SDL_CONTROLLER_AXIS_LEFTX, 32767);
    set_button(SDL_CONTROLLER_BUTTON_A, true);
    CHECK(same(read(), 2, 1, 0));
    set_axis(SDL_CONTROLLER_AXIS_LEFTX, 0);
    set_button(SDL_CONTROLLER_BUTTON_A, false);
    set_axis(SDL_CONTROLLER_AXIS_TRIGGERRIGHT, 32767);
    set_button(SDL_CONTROLLER_BUTTON_B, true);
    CHECK(same(read(), 0, 1, 1));
    set_axis(SDL_CONTROLLER_AXIS_TRIGGERRIGHT, -32768); // a raw trigger axis rests at its minimum
    set_button(SDL_CONTROLLER_BUTTON_B, false);
    set_button(SDL_CONTROLLER_BUTTON_DPAD_LEFT, true);
    set_button(SDL_CONTROLLER_BUTTON_X, true);
    CHECK(same(read(), 1, 0, 1));
    // A released pad (and no pad at all) gives no input.
    set_button(SDL_CONTROLLER_BUTTON_DPAD_LEFT, false);
    set_button(SDL_CONTROLLER_BUTTON_X, false);
    CHECK(same(read(), 0, 0, 0));
    CHECK(same(map_input(read_input(nullptr)), 0, 0, 0));

    SDL_GameControllerClose(pad);
    SDL_JoystickDetachVirtual(index);
    SDL_QuitSubSystem(SDL_INIT_GAMECONTROLLER);
}
