#ifndef RETCON_NET_SESSION_CONFIG_HPP
#define RETCON_NET_SESSION_CONFIG_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <type_traits>
#include <vector>

#include <retcon/ecs/frame.hpp>
#include <retcon/ecs/schema.hpp>
#include <retcon/ecs/step.hpp>
#include <retcon/ecs/world.hpp>

namespace retcon {

/**
 * @brief The settings a server and its clients must agree on (checked in the handshake) plus
 * each side's local tuning. Build one with `make_session_config<Input>()`.
 */
struct session_config {
    std::uint16_t tick_hz = 60;         ///< fixed simulation rate (must match)
    std::uint8_t max_players = 2;       ///< player slots (must match)
    std::uint16_t input_size = 4;       ///< bytes of one player's input (must match)
    std::uint64_t input_layout_hash = 0;///< layout of the input type (must match)
    std::uint64_t content_version = 0;  ///< the game's own content/version number (must match)
    /// @brief How a late input is substituted (server) and a remote one predicted (client): the
    /// same rule on both sides. Default: repeat the last input.
    prediction_rule prediction;
    std::uint8_t input_delay = 2;          ///< frames between sampling a local input and its frame (the minimum when adaptive)
    /// @brief If above input_delay, the client's delay adapts to half the measured round trip,
    /// between the two, one frame per second at most (local; the server needs no change).
    std::uint8_t max_input_delay = 0;
    std::uint32_t prediction_window = 16;  ///< frames a client may run ahead of confirmed inputs
    std::uint32_t checksum_interval = 1;   ///< compare world hashes every Nth confirmed frame (0: never)
    std::uint32_t interrupt_ms = 500;      ///< silence before "network interrupted"
    std::uint32_t disconnect_ms = 5000;    ///< silence before "disconnected"
};

/// @brief A config for input type Input (trivially copyable; declared with RETCON_COMPONENT so
/// its field table defines the layout hash).
template<class Input>
session_config make_session_config(std::uint8_t max_players, std::uint16_t tick_hz = 60) {
    static_assert(std::is_trivially_copyable_v<Input>, "retcon: the input type must be trivially copyable");
    session_config c;
    c.tick_hz = tick_hz;
    c.max_players = max_players;
    c.input_size = static_cast<std::uint16_t>(sizeof(Input));
    schema layout;
    layout.resource<Input>();
    c.input_layout_hash = layout.hash();
    return c;
}

} // namespace retcon

#endif
