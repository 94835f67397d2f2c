#ifndef RETCON_NET_SRC_SERVER_HELLO_HPP
#define RETCON_NET_SRC_SERVER_HELLO_HPP

#include <retcon/ecs/frame.hpp>
#include <retcon/net/protocol.hpp>
#include <retcon/net/server_session.hpp>
#include <retcon/net/session_config.hpp>
#include <retcon/net/transport.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "slot_table.hpp"

namespace retcon::internal {

/// @brief What the server decides about a decoded hello (`judge_hello`).
struct hello_verdict {
    bool admitted = false;
    wire::reject_reason reason = wire::reject_reason::protocol; ///< refused: sent to the client
    std::string text;                                           ///< refused: why, for the client
    int slot = -1;                                              ///< admitted: its slot, -1: a spectator
    peer_id replaces = no_peer;                                 ///< a stale connection of the same player to drop first
    const char *replace_reason = "";                            ///< why that one is dropped
    std::uint64_t player_id = 0;                                ///< the identity admission bound the slot to (0: none)
    std::optional<std::string> name;                            ///< the admission's name for it (unset: the hello's)
};

/**
 * @brief The server's side of the handshake (docs/protocol.md, "Handshake"; docs/net.md,
 * "Spectators, late join, reconnect"): whether the hello of connection @p peer may join a match
 * whose world has schema hash @p schema_hash, played with @p config, and where. In order: byte
 * order, entity handle size, simulation semantics, schema, input layout, content version (compatibility), the host's admission
 * (`options.admission`: join tokens, a bound slot), a spectator place (@p spectators taken of
 * `options.max_spectators`), a player slot from @p slots (a reconnect token's own, a bound one,
 * or the free one abandoned longest ago). Changes nothing: the session applies the verdict.
 */
[[nodiscard]] hello_verdict judge_hello(peer_id peer, const wire::hello_msg &hello, std::uint64_t schema_hash,
                                        const session_config &config, const server_options &options,
                                        std::size_t spectators, const slot_table &slots);

/// @brief The welcome of a connection admitted at @p server_frame into @p slot (-1: a
/// spectator): the match's settings are the server's. Its slot and token are filled when it
/// takes the slot.
[[nodiscard]] wire::welcome_msg make_welcome(const session_config &config, frame_t server_frame, int slot,
                                             bool verify_spectators);

} // namespace retcon::internal

#endif
