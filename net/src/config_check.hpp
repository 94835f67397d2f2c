#ifndef RETCON_NET_SRC_CONFIG_CHECK_HPP
#define RETCON_NET_SRC_CONFIG_CHECK_HPP

#include <retcon/config.hpp>
#include <retcon/net/protocol.hpp>
#include <retcon/net/session_config.hpp>

#include <cstdint>
#include <string>

namespace retcon::internal {

/// @brief Which side a config is checked for: a client takes the match settings (player slots,
/// tick rate, input delays) from the server's welcome, so only the server's are checked.
enum class config_side : std::uint8_t { server, client };

/// @brief The rules a client checks in its own config, named as fields of @p type
/// ("session_config" or "client_config"): what is wrong, or an empty string.
[[nodiscard]] std::string local_config_problem(const char *type, std::uint16_t input_size,
                                               std::uint32_t prediction_window);

/// @brief Reports a session_config outside what the protocol can carry (misuse, all builds;
/// docs/net.md, "session_config"); `session_config_problem` says what is wrong.
inline void check_config(const session_config &c, config_side side = config_side::server) {
    if (const std::string why = session_config_problem(c, side == config_side::server); !why.empty())
        misuse("%s", why.c_str());
}

} // namespace retcon::internal

#endif
