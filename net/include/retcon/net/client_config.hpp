#ifndef RETCON_NET_CLIENT_CONFIG_HPP
#define RETCON_NET_CLIENT_CONFIG_HPP

#include <cstdint>
#include <string>

#include <retcon/ecs/frame.hpp>

#include "session_config.hpp"

namespace retcon {

/**
 * @brief What a client session needs from its game: the session_config without the match
 * settings. Build one with `make_client_config<Input>()`.
 *
 * Player slots, tick rate and input delays are the server's: its welcome carries them and the
 * client adopts them (client_session::players(), tick_hz()), so a client has nothing to say about
 * them. What is left (docs/net.md, "session_config"):
 * - **compiled in, checked by the server**: input_size, input_layout_hash, content_version.
 * - **should match the server's**: prediction, checksum_interval.
 * - **local**: prediction_window, interrupt_ms, disconnect_ms.
 */
struct client_config {
    std::uint16_t input_size = 4;        ///< bytes of one player's input (must match)
    std::uint64_t input_layout_hash = 0; ///< layout of the input type (must match)
    std::uint64_t content_version = 0;   ///< the game's own content/version number (must match)
    /// @brief How a remote input is predicted: the server's rule for late inputs, or every
    /// difference costs a rollback. Default: repeat the last input.
    prediction_rule prediction{};
    std::uint32_t prediction_window = 16; ///< frames the client may run ahead of confirmed inputs
    std::uint32_t checksum_interval = 1;  ///< compare world hashes every Nth confirmed frame (0: never)
    std::uint32_t interrupt_ms = 500;     ///< silence before "network interrupted"
    std::uint32_t disconnect_ms = 5000;   ///< silence before "disconnected"
};

/// @brief What is wrong with @p config, or an empty string: a value outside what the protocol
/// can carry. A client session reports a problem as misuse.
[[nodiscard]] std::string client_config_problem(const client_config &config);

/// @brief A client's config for input type Input (trivially copyable; declared with
/// RETCON_COMPONENT so its field table defines the layout hash): the same input_size and
/// input_layout_hash as `make_session_config<Input>` gives the server.
template<class Input>
client_config make_client_config() {
    client_config c;
    c.input_size = static_cast<std::uint16_t>(sizeof(Input));
    c.input_layout_hash = internal::input_layout_hash<Input>();
    return c;
}

/// @brief The client's part of @p match, a config the game shares between server and client:
/// everything but the match settings the welcome brings.
inline client_config make_client_config(const session_config &match) {
    client_config c;
    c.input_size = match.input_size;
    c.input_layout_hash = match.input_layout_hash;
    c.content_version = match.content_version;
    c.prediction = match.prediction;
    c.prediction_window = match.prediction_window;
    c.checksum_interval = match.checksum_interval;
    c.interrupt_ms = match.interrupt_ms;
    c.disconnect_ms = match.disconnect_ms;
    return c;
}

} // namespace retcon

#endif
