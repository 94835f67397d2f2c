#ifndef RETCON_NET_TRANSPORT_HPP
#define RETCON_NET_TRANSPORT_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <thread>

#include <retcon/snapshot/error.hpp>

#include "protocol.hpp"

namespace retcon {

/// @brief Identifies a connection within one transport.
using peer_id = std::uint32_t;
inline constexpr peer_id no_peer = ~peer_id{0};

/// @brief What a transport reports while polling (pull-style, like ENet's event loop).
class transport_handler {
public:
    virtual ~transport_handler() = default;
    /// @brief A connection is established (server: a client arrived; client: connected).
    virtual void on_connect(peer_id peer) = 0;
    /// @brief A connection ended (timeout, remote disconnect, or refused).
    virtual void on_disconnect(peer_id peer) = 0;
    /// @brief A packet arrived; @p data is valid only during the call.
    virtual void on_receive(peer_id peer, wire::channel ch, std::span<const std::byte> data) = 0;
    /// @brief The transport turned away a connection that never became a peer (server side:
    /// a half-open ENet handshake, too many connections mid-handshake). Receives the remote end
    /// as "HOST:PORT" and a short reason for the log; called once per refusal, and no on_connect
    /// or on_disconnect follows for that connection. A connection the transport drops after
    /// on_connect (still pending: see transport::admit) is reported through on_disconnect instead.
    virtual void on_refused(const std::string & /*address*/, const std::string & /*reason*/) {}
};

/// @brief Per-connection counters a transport can report.
struct transport_peer_stats {
    std::uint32_t rtt_ms = 0;
    std::uint32_t rtt_variance_ms = 0;
    double packet_loss = 0.0; ///< fraction of unreliable packets believed lost
};

/**
 * @brief Moves packets between a server and its clients. Channel wire::channel::inputs is
 * unreliable (and sequenced where the transport can), the others are reliable and ordered.
 * Sessions own no sockets: the game creates a transport (ENet for real play, the simulated
 * network for tests) and hands it over. Time is injected: `poll(now_ms)`.
 */
class transport {
public:
    virtual ~transport() = default;
    /// @brief Sends @p data to @p peer on @p ch (copied; the caller may reuse its buffer).
    virtual void send(peer_id peer, wire::channel ch, std::span<const std::byte> data) = 0;
    /// @brief Ends a connection (the peer sees a disconnect).
    virtual void disconnect(peer_id peer) = 0;
    /// @brief The session accepted this connection's handshake (a player or spectator);
    /// connections not admitted are pending. A server transport may drop pending connections to
    /// keep room for newcomers (ENet: enet_options::max_pending, free_slot_reserve), reporting
    /// each through transport_handler::on_disconnect; admitted ones it never drops. Unknown peers
    /// are ignored; transports without such limits ignore the call.
    virtual void admit(peer_id) {}
    /// @brief Delivers what has arrived by @p now_ms to @p handler.
    virtual void poll(std::uint64_t now_ms, transport_handler &handler) = 0;
    /// @brief Pushes queued packets onto the wire.
    virtual void flush() {}
    /**
     * @brief Blocks until a packet may have arrived or @p timeout has passed, whichever comes
     * first, so a loop can sleep between ticks without missing traffic.
     * @return true when woken by readiness (poll has something, or may have) or by a signal (the
     * caller re-checks its flags, then waits again); false when the timeout passed.
     * The default sleeps for @p timeout and returns false. ENet waits on its socket with
     * microsecond precision (ppoll); the simulated network returns false at once (its time is
     * virtual: nothing arrives while the caller waits). Spurious wake-ups are allowed: the
     * caller polls and finds nothing.
     */
    virtual bool wait(std::chrono::microseconds timeout) {
        if (timeout.count() > 0) std::this_thread::sleep_for(timeout);
        return false;
    }
    /// @brief Link statistics for @p peer, where the transport measures them.
    [[nodiscard]] virtual transport_peer_stats peer_stats(peer_id) const { return {}; }
    /// @brief The remote end of @p peer as "HOST:PORT", for messages ("could not connect to
    /// HOST:PORT"). A client transport names the server as it was asked to reach it, even
    /// before (or without) a connection; empty where the transport has no addresses (the
    /// simulated network) or for an unknown peer.
    [[nodiscard]] virtual std::string peer_address(peer_id) const { return {}; }
    /// @brief The local port this transport is bound to (a server created for port 0 gets a free
    /// one from the system: this says which); 0 where the transport has no ports.
    [[nodiscard]] virtual std::uint16_t local_port() const { return 0; }
};

/**
 * @brief ENet settings (defaults follow docs/net.md).
 *
 * A server's ENet peer table (`max_peers`) holds every connection in any state, including ones
 * still mid-handshake and ones being closed. Left alone, ENet keeps a half-open connection (the
 * remote sent CONNECT and never answered) for about 30 s, so a few dozen of them lock every
 * player out. The server transport therefore bounds what it holds for connections that are not
 * (or no longer) players or spectators:
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
 * What remains: ENet's handshake has no cookies, so a CONNECT needs no return path and can be
 * sent from spoofed addresses. A fast CONNECT flood still delays newcomers (each must win one of
 * the free slots and finish its handshake before the flood makes it the oldest pending
 * connection), and a flood that turns over all pending slots within a newcomer's handshake
 * (about two round trips) keeps newcomers out for as long as it lasts. Admitted players and
 * spectators keep their slots. See docs/net.md, "Security model".
 */
struct enet_options {
    std::size_t max_peers = 32; ///< server: ENet peer slots, in any state (see enet_options_for_match)
    std::uint32_t timeout_min_ms = 1000;  ///< ENet peer timeout bounds
    std::uint32_t timeout_max_ms = 5000;
    std::uint32_t max_packet_bytes = 64u * 1024u; ///< server side: refuse larger packets
    std::uint32_t max_waiting_bytes = 1u << 20;   ///< server side: cap buffered data per host
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
    std::string bind_host;
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
