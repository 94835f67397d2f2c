#ifndef RETCON_DEMO_RENDER_HPP
#define RETCON_DEMO_RENDER_HPP

#include <retcon/ecs/world.hpp>

#include <string>

namespace retcon::demo {

/// @brief Draws the arena into an ANSI frame of @p cols × @p rows (top line: @p status).
std::string render(const world &w, int cols, int rows, const std::string &status, int my_slot);

} // namespace retcon::demo

#endif
