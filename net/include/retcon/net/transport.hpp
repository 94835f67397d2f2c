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
    /// @brief The transport is ending @p peer's connection for breaking its rules (ENet: a packet
    /// larger than enet_options::max_packet_bytes); @p text says what it did, for the log
    /// ("sent a packet of 204800 bytes; the limit is 65536"). Called just before that peer's
    /// on_disconnect; the connection is already closed, so disconnecting it does nothing.
    virtual void on_violation(peer_id /*peer*/, const std::string & /*text*/) {}
};

/// @brief Per-connection counters a transport can report.
struct transport_peer_stats {
    std::uint32_t rtt_ms = 0;
    std::uint32_t rtt_variance_ms = 0;
    double packet_loss = 0.0; ///< fraction of unreliable packets believed lost
};

/// @brief What a server transport's admission defences did since it was created
/// (docs/net.md, "Security model"). Transports without them report zeros.
struct transport_counters {
    /// @brief Connection attempts answered with a cookie instead of a connection (ENet: a CONNECT
    /// without a valid connect cookie; a spoofed source never answers, a real client does once).
    std::uint64_t connects_challenged = 0;
    /// @brief Connections never admitted that the transport dropped to keep room for newcomers
    /// (ENet: handshake deadline, `max_pending`, `free_slot_reserve`); each was also reported
    /// through transport_handler::on_refused or on_disconnect.
    std::uint64_t pending_dropped = 0;
    /// @brief Connections the transport ended for sending a packet larger than it accepts (ENet:
    /// enet_options::max_packet_bytes); each the handler still knew was reported through
    /// transport_handler::on_violation, then on_disconnect.
    std::uint64_t oversized_packets = 0;
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
    /**
     * @brief Client: abandons the connection to the server, if any is left, and starts a new one
     * to the same server; the next polls report it as they reported the first (on_connect, or
     * on_disconnect if it fails). Nothing more is delivered from the old connection, and the
     * server sees it end (ENet: when it times out; a reconnection with a reconnect token takes
     * its slot over at once). client_session calls it for client_options::reconnect
     * (docs/net.md, "Reconnecting").
     * @return false where the transport cannot (a server transport; the default).
     */
    virtual bool reconnect() { return false; }
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
    /// @brief Counters of the admission defences (server transports).
    [[nodiscard]] virtual transport_counters counters() const { return {}; }
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

} // namespace retcon

#endif
