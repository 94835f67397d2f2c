#ifndef RETCON_TESTS_DEMO_DISPLAY_HPP
#define RETCON_TESTS_DEMO_DISPLAY_HPP
// A display for the window tests: the one in DISPLAY when there is one, else a private Xvfb this
// process starts (and stops at exit). With neither, the test says "skipped: no SDL2/Xvfb" and
// ends with status 77, which ctest reports as skipped (never as passed).

#include <memory>
#include <string>

#include "canvas.hpp"

namespace retcon::demo::testing {

/// @brief Makes sure an X display is there for SDL, or skips the calling test (exit 77).
void require_display();

/// @brief A software-rendered canvas of @p width × @p height pixels on the test display (so the
/// same scene gives the same pixels on every machine); skips the test when none can be opened.
std::unique_ptr<canvas> test_canvas(int width, int height);

/// @brief Whether a pixel of @p colour lies within @p radius pixels of @p at in @p p (a drawn
/// point may land a pixel off its exact place).
bool colour_near(const picture &p, point at, rgba colour, int radius = 1);

} // namespace retcon::demo::testing

#endif
