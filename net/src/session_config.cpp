#include <retcon/net/protocol.hpp>
#include <retcon/net/session_config.hpp>

namespace retcon {

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
    if (c.input_size == 0 || c.input_size > wire::limits::max_input_size)
        return fields("input_size", c.input_size, ("is outside 1.." + std::to_string(wire::limits::max_input_size)));
    if (c.prediction_window == 0 || c.prediction_window > 256)
        return fields("prediction_window", c.prediction_window, "is outside 1..256");
    return {};
}

} // namespace retcon
