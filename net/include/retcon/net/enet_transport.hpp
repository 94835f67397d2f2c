#ifndef RETCON_NET_ENET_TRANSPORT_HPP
#define RETCON_NET_ENET_TRANSPORT_HPP

// The ENet transport: the real UDP transport of servers and clients (docs/net.md,
// "Transports"). ENet itself stays behind this header: <enet/enet.h> appears only in
// net/src/enet_transport.cpp.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <retcon/snapshot/error.hpp>

#include "transport.hpp"

namespace retcon {

/**
 * @brief ENet settings (defaults follow docs/net.md).
 *
 * A server's ENet peer table (`max_peers`) holds every connection in any state, including ones
 * still mid-handshake and ones being closed. Left alone, ENet keeps a half-open connection (the
 * remote sent CONNECT and never answered) for about 30 s, so a few dozen of them lock every
 * player out. The server transport therefore bounds what it holds for connections that are not
 * (or no longer) players or spectators:
 * - A CONNECT takes a slot only if it carries a *connect cookie*: a keyed MAC of its source
 *   address and port and a 5 s time window, which the server sends to that address in answer to
 *   a CONNECT without one (allocating nothing) and the client transport sends back in a new
 *   CONNECT (docs/net.md, "Transports"). Spoofed sources never see their cookies, so forged
 *   CONNECTs take no slot at any rate; each costs the server a hash and a 12-byte answer.
 * - A connection is *pending* from the moment the transport first sees it until the session
 *   calls transport::admit, whether or not its ENet handshake has completed (a connection that
 *   completed it but never sends a valid hello is pending until the session's hello deadline
 *   drops it). Pending connections share one cap, `max_pending`, the oldest going first.
 * - A connection must complete ENet's handshake within `handshake_timeout_ms` of being first seen.
 * - When fewer than `free_slot_reserve` slots are free, pending connections are dropped
 *   oldest-first, however young, until the reserve is back or none are left.
 * - A connection the session closed (transport::disconnect) that is still not closed 1000 ms
 *   later (its remote does not acknowledge) is reset: ENet alone would hold it for 1-5 s.
 * - One IP address holds at most `max_peers_per_address` slots: ENet refuses more before it
 *   allocates a slot (`ENetHost::duplicatePeers`), silently (no on_refused).
 * A dropped connection that never reached on_connect is reset silently and reported through
 * transport_handler::on_refused; one that did is disconnected and reported through
 * transport_handler::on_disconnect. Admitted connections are never dropped (only closed when the
 * session says so). Deadlines count the `now_ms` given to `poll`, not ENet's clock.
 *
 * What remains: an attacker that receives the server's datagrams at its addresses passes the
 * cookie, and then holds at most `max_peers_per_address` slots per address, culled as above;
 * many such addresses can still delay newcomers. A spoofed CONNECT flood cannot: measured on
 * loopback with a 30-slot table, 500 and 3,000 forged CONNECTs/s from 4 and 100 addresses left
 * a joiner 25 ms or 100 ms away each way joining in about three round trips (160 ms, 610 ms),
 * where before the cookies it did not get in within 4 s (tests/net/enet_transport.cpp). What the defences did is counted
 * (transport::counters). Admitted players and spectators keep their slots. See docs/net.md,
 * "Security model".
 */
struct enet_options {
    std::size_t max_peers = 32; ///< server: ENet peer slots, in any state (see enet_options_for_match)
    /// @brief ENet's lower timeout bound, for its retry-count rule, which the transport puts out
    /// of reach (docs/net.md, "Loss and latency"): kept for ENet, no longer decisive.
    std::uint32_t timeout_min_ms = 1000;
    /// @brief ENet ends a connection when a reliable command (its own ping, at least) has had no
    /// acknowledgement for this long; retries come at least every 500 ms (or every retransmission
    /// timeout, if longer), so loss alone seldom does it (docs/net.md, "Loss and latency").
    std::uint32_t timeout_max_ms = 5000;
    /// @brief Server: a connection sending a larger packet is ended, reported through
    /// transport_handler::on_violation (ENet alone would drop it silently and let it time out).
    std::uint32_t max_packet_bytes = 64u * 1024u;
    std::uint32_t max_waiting_bytes = 1u << 20; ///< server side: cap buffered data per host
    /// @brief Server: a connection whose ENet handshake has not completed (no on_connect yet)
    /// this long after the transport first saw it is reset (2000; 0 = no deadline).
    std::uint32_t handshake_timeout_ms = 2000;
    /// @brief Server: at most this many pending connections (not admitted) older than 250 ms;
    /// beyond it the oldest are dropped, since a legitimate handshake completes within a round
    /// trip or two (16; 0 = no cap). Younger ones are left to `free_slot_reserve`, so a burst of
    /// honest clients gets in.
    std::size_t max_pending = 16;
    /// @brief Server: when fewer ENet slots than this are free, pending connections are dropped
    /// oldest-first regardless of age (4; 0 = off). Must be less than `max_peers`.
    std::size_t free_slot_reserve = 4;
    /// @brief Server: connections in any state from one IP address (any port); ENet ignores a
    /// CONNECT beyond this before allocating a slot (8; 0 = no cap).
    std::size_t max_peers_per_address = 8;
    /// @brief Client: the local address to send from (empty: any). Lets loopback tests use
    /// 127.0.0.2, 127.0.0.3, ... as distinct sources. A server takes its address as a parameter
    /// of make_enet_server instead.
    std::string bind_host{};
};

/**
 * @brief The default options with `max_peers` sized for a match: @p players + @p spectators +
 * `max_pending` + `free_slot_reserve`, at most ENet's peer-ID limit (4095).
 *
 * A player's slot must never be taken by spectators or by pending connections
 * (docs/net.md, "Security model"): the session caps spectators, this transport caps pending
 * connections at `max_pending`, and the table has room for all of them at once plus the free
 * reserve, where newcomers and slots not yet reusable after a disconnect fit.
 */
[[nodiscard]] enet_options enet_options_for_match(std::size_t players, std::size_t spectators);

/// @brief A server transport listening on @p port (0.0.0.0 or @p bind_host); port 0 picks a free
/// port, reported by `local_port()`. Errors: `max_peers` outside 1..4095, `free_slot_reserve` not
/// below `max_peers`, an unresolvable @p bind_host, a port in use.
result<std::unique_ptr<transport>> make_enet_server(std::uint16_t port, const enet_options &options = {},
                                                    const std::string &bind_host = "");

/// @brief A client transport connecting to @p host : @p port; the connection completes during
/// later polls (on_connect, or on_disconnect if ENet gives up). The server is peer 0;
/// `disconnect(0)` before the connection completes abandons the attempt (no event follows).
/// ENet alone gives up only after its retransmission limit (about 30 s): client_session bounds
/// the wait with client_options::connect_timeout_ms.
result<std::unique_ptr<transport>> make_enet_client(const std::string &host, std::uint16_t port,
                                                    const enet_options &options = {});

} // namespace retcon

#endif
