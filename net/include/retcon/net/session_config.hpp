#ifndef RETCON_NET_SESSION_CONFIG_HPP
#define RETCON_NET_SESSION_CONFIG_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <retcon/ecs/frame.hpp>
#include <retcon/ecs/schema.hpp>
#include <retcon/ecs/step.hpp>
#include <retcon/ecs/world.hpp>

namespace retcon {

/**
 * @brief The settings of a match plus each side's local tuning. A server builds one with
 * `make_session_config<Input>(players)`; a client needs only its part, a client_config
 * (`make_client_config<Input>()`, or `make_client_config(config)` from a config both share).
 *
 * Three groups (docs/protocol.md, "Handshake"):
 * - **compiled in, checked**: input_size, input_layout_hash, content_version (and the world's
 *   schema hash). Client and server must agree or the server rejects the client.
 * - **the server's, adopted**: tick_hz, max_players, input_delay, max_input_delay. The server's
 *   values are sent in the welcome and a client replaces its own with them, so a client needs
 *   only the address; a client's values are placeholders until the welcome.
 * - **local**: prediction, prediction_window, checksum_interval, interrupt_ms, disconnect_ms.
 */
struct session_config {
    std::uint16_t tick_hz = 60;          ///< fixed simulation rate (the server's; adopted by clients)
    std::uint8_t max_players = 2;        ///< player slots (the server's; adopted by clients)
    std::uint16_t input_size = 4;        ///< bytes of one player's input (must match)
    std::uint64_t input_layout_hash = 0; ///< layout of the input type (must match)
    std::uint64_t content_version = 0;   ///< the game's own content/version number (must match)
    /// @brief How a late input is substituted (server) and a remote one predicted (client): the
    /// same rule on both sides. Default: repeat the last input.
    prediction_rule prediction{};
    /// @brief Frames between sampling a local input and its frame (the minimum when adaptive).
    /// The server's value is sent to every client, which uses it (0..60).
    std::uint8_t input_delay = 2;
    /// @brief If above input_delay, each client's delay adapts to half its measured round trip,
    /// between the two, one frame per second at most. The server's value bounds every client
    /// (0..60; at or below input_delay: a fixed delay).
    std::uint8_t max_input_delay = 0;
    std::uint32_t prediction_window = 16; ///< frames a client may run ahead of confirmed inputs
    std::uint32_t checksum_interval = 1;  ///< compare world hashes every Nth confirmed frame (0: never)
    std::uint32_t interrupt_ms = 500;     ///< silence before "network interrupted"
    std::uint32_t disconnect_ms = 5000;   ///< silence before "disconnected"
};

/// @brief What is wrong with @p config, or an empty string: a value outside what the protocol
/// can carry. A server checks every field; a client (@p server_side false) only its own, since
/// it adopts the match settings from the server's welcome. Sessions report a problem as misuse;
/// the C API as an error.
[[nodiscard]] std::string session_config_problem(const session_config &config, bool server_side);

namespace internal {

/// @brief The layout hash of input type Input: the schema hash of a schema holding Input as its
/// only resource (what rc_input_layout_hash computes for the same layout in C).
template<class Input>
std::uint64_t input_layout_hash() {
    static_assert(std::is_trivially_copyable_v<Input>, "retcon: the input type must be trivially copyable");
    schema layout;
    layout.resource<Input>();
    return layout.hash();
}

} // namespace internal

/// @brief A server's config for input type Input (trivially copyable; declared with RETCON_COMPONENT so
/// its field table defines the layout hash). A client takes @p max_players and @p tick_hz from the
/// server's welcome and needs neither: it uses `make_client_config<Input>()` (client_config.hpp).
template<class Input>
session_config make_session_config(std::uint8_t max_players, std::uint16_t tick_hz = 60) {
    session_config c;
    c.tick_hz = tick_hz;
    c.max_players = max_players;
    c.input_size = static_cast<std::uint16_t>(sizeof(Input));
    c.input_layout_hash = internal::input_layout_hash<Input>();
    return c;
}

} // namespace retcon

#endif
