#include "config_check.hpp"

#include <retcon/net/protocol.hpp>
#include <retcon/net/session_config.hpp>

namespace retcon {

namespace internal {

std::string local_config_problem(const char *type, std::uint16_t input_size, std::uint32_t prediction_window) {
    const auto fields = [type](const char *name, unsigned value, const std::string &rule) {
        return std::string{type} + ": " + name + " " + std::to_string(value) + " " + rule;
    };
    if (input_size == 0 || input_size > wire::limits::max_input_size)
        return fields("input_size", input_size, ("is outside 1.." + std::to_string(wire::limits::max_input_size)));
    if (prediction_window == 0 || prediction_window > 256)
        return fields("prediction_window", prediction_window, "is outside 1..256");
    return {};
}

} // namespace internal

std::string session_config_problem(const session_config &c, bool server_side) {
    const auto fields = [](const char *name, unsigned value, const std::string &rule) {
        return "session_config: " + std::string{name} + " " + std::to_string(value) + " " + rule;
    };
    if (server_side) {
        if (c.max_players == 0 || c.max_players > wire::limits::max_players)
            return fields("max_players", c.max_players, ("is outside 1.." + std::to_string(wire::limits::max_players)));
        if (c.tick_hz == 0) return "session_config: tick_hz must be positive";
        if (c.input_delay > wire::limits::max_input_delay)
            return fields("input_delay", c.input_delay,
                          ("exceeds " + std::to_string(wire::limits::max_input_delay) + " frames"));
        if (c.max_input_delay > wire::limits::max_input_delay)
            return fields("max_input_delay", c.max_input_delay,
                          ("exceeds " + std::to_string(wire::limits::max_input_delay) + " frames"));
    }
    return internal::local_config_problem("session_config", c.input_size, c.prediction_window);
}

} // namespace retcon
