#ifndef RETCON_NET_SRC_CONFIG_CHECK_HPP
#define RETCON_NET_SRC_CONFIG_CHECK_HPP

#include <retcon/config.hpp>
#include <retcon/net/protocol.hpp>
#include <retcon/net/session_config.hpp>

#include <cstdint>

namespace retcon::internal {

/// @brief Which side a config is checked for: a client takes the match settings (player slots,
/// tick rate, input delays) from the server's welcome, so only the server's are checked.
enum class config_side : std::uint8_t { server, client };

/// @brief Reports a session_config outside what the protocol can carry (misuse, all builds;
/// docs/net.md, "session_config").
inline void check_config(const session_config &c, config_side side = config_side::server) {
    if (side == config_side::server) {
        if (c.max_players == 0 || c.max_players > wire::limits::max_players)
            misuse("session_config: max_players %u is outside 1..%zu", static_cast<unsigned>(c.max_players),
                   wire::limits::max_players);
        if (c.tick_hz == 0) misuse("session_config: tick_hz must be positive");
        if (c.input_delay > wire::limits::max_input_delay)
            misuse("session_config: input_delay %u exceeds %zu frames", static_cast<unsigned>(c.input_delay),
                   wire::limits::max_input_delay);
        if (c.max_input_delay > wire::limits::max_input_delay)
            misuse("session_config: max_input_delay %u exceeds %zu frames", static_cast<unsigned>(c.max_input_delay),
                   wire::limits::max_input_delay);
    }
    if (c.input_size == 0 || c.input_size > wire::limits::max_input_size)
        misuse("session_config: input_size %u is outside 1..%zu", static_cast<unsigned>(c.input_size),
               wire::limits::max_input_size);
    if (c.prediction_window == 0 || c.prediction_window > 256)
        misuse("session_config: prediction_window %u is outside 1..256", c.prediction_window);
}

} // namespace retcon::internal

#endif
