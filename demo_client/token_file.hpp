#ifndef RETCON_DEMO_TOKEN_FILE_HPP
#define RETCON_DEMO_TOKEN_FILE_HPP

#include <string>

#include <retcon/ecs/error.hpp>
#include <retcon/net/reconnect_token.hpp>

namespace retcon::demo {

// demo_client's `--token-file`: where a player keeps the reconnect token its server issued, so
// a restarted client takes its slot back (docs/net.md, "Spectators, late join, reconnect"). The
// file holds the token as 32 hexadecimal digits and a newline. Whoever reads it can take the
// slot, so it is written with permissions 0600 and never shown to anyone.

/// @brief The token in @p path; the empty token when the file does not exist (a first run).
/// An unreadable file, or one that holds anything but a token, is an error naming @p path.
[[nodiscard]] result<reconnect_token> read_token_file(const std::string &path);

/// @brief Replaces @p path with @p token atomically, with permissions 0600 (write_file_atomic):
/// a crash at any moment leaves either the old file or the new one, never half of one.
[[nodiscard]] result<void> write_token_file(const std::string &path, const reconnect_token &token);

} // namespace retcon::demo

#endif
