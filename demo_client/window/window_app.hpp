#ifndef RETCON_DEMO_WINDOW_APP_HPP
#define RETCON_DEMO_WINDOW_APP_HPP
// demo_client --window: the live match and the replay viewer in an SDL2 window. Both draw a
// scene (scene.hpp) through the canvas; neither reads the world while drawing.

#include "client_app.hpp"

namespace retcon::demo {

/// @brief Plays a live match in a window; returns the exit status (as run_client).
int run_window_client(const client_settings &settings);
/// @brief Plays back and verifies a replay in a window; returns the exit status (as run_replay).
int run_window_replay(const client_settings &settings);

} // namespace retcon::demo

#endif
