#ifndef RETCON_DEMO_RENDER_HPP
#define RETCON_DEMO_RENDER_HPP

#include "scene.hpp"

#include <string>

namespace retcon::demo {

/// @brief Draws @p s into an ANSI frame of @p cols × @p rows (top line: @p status).
std::string render(const scene &s, int cols, int rows, const std::string &status, int my_slot);

} // namespace retcon::demo

#endif
