#ifndef RETCON_DEMO_REPLAY_INPUT_HPP
#define RETCON_DEMO_REPLAY_INPUT_HPP
// What the replay viewer does with the keyboard and the mouse: keys pause, step, change speed and
// seek; a click or drag on the seek bar seeks to the frame under the mouse. Apart from the loop so
// a test can hand it events without a window.

#include "replay_player.hpp"
#include "replay_view.hpp"

union SDL_Event;

namespace retcon::demo {

/**
 * @brief The viewer's input: applies SDL events to a replay player. Keys: Space or P pause,
 * '.' or Right one frame (paused), + or = faster, - slower, [ or PageUp back 10 s, ] or
 * PageDown forward 10 s, Home the start, End the end, Esc or Q leave.
 */
class replay_input {
public:
    /// @brief Applies @p e to @p player; false when it asks to leave (a quit key, the window
    /// closed). Mouse positions are in window points, @p pixel_scale pixels each; @p layout is
    /// the one last drawn.
    bool handle(const SDL_Event &e, replay_player &player, const replay_layout &layout, float pixel_scale);
    /// @brief The seek bar's handle is being dragged (playback holds still meanwhile).
    [[nodiscard]] bool dragging() const noexcept { return dragging_; }

private:
    bool dragging_ = false;
};

} // namespace retcon::demo

#endif
