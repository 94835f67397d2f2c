#ifndef RETCON_NET_TRANSPORT_MUX_HPP
#define RETCON_NET_TRANSPORT_MUX_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "transport.hpp"

namespace retcon {

class transport_mux;

/// @brief A route index that names no route: transport_router::route refuses with it.
inline constexpr std::size_t no_route = ~std::size_t{0};

/**
 * @brief Decides where a new connection of a transport_mux goes (docs/net.md, "One port, many
 * matches"). Called only from transport_mux::poll, on the thread that polls.
 */
class transport_router {
public:
    virtual ~transport_router() = default;
    /**
     * @brief The first packet of a connection no route holds yet.
     * @return The route to hand the connection to: that route's transport then delivers
     * on_connect and this packet, in order, and every later event of the connection. Or
     * no_route: refused. The router may have sent a reply first (transport_mux::send_unrouted)
     * and should call transport_mux::refuse(@p peer); if it does not, the mux does. An index
     * that names no route is refused too, and reported through on_unrouted_closed.
     *
     * The router may call the mux's add_route, route, remove_route, send_unrouted and refuse
     * from here (creating a match for a newcomer is fine), but not poll. A connection it refuses
     * here and then routes anyway stays refused.
     */
    virtual std::size_t route(peer_id peer, wire::channel ch, std::span<const std::byte> first_packet) = 0;
    /**
     * @brief A connection ended, or was dropped by the base transport or the mux, before any
     * route took it: @p address is its remote end ("HOST:PORT"; empty where the transport has no
     * addresses), @p reason a short text for the log. A flood of half-open connections makes a
     * flood of these: rate-limit the logging. Not called for connections the router refused.
     */
    virtual void on_unrouted_closed(const std::string & /*address*/, const std::string & /*reason*/) {}
};

/// @brief transport_mux settings.
struct mux_options {
    /// @brief A connection that sends nothing routable within this many milliseconds of its
    /// on_connect (the `now_ms` of transport_mux::poll) is refused and reported through
    /// transport_router::on_unrouted_closed (2000; 0 = no deadline).
    std::uint32_t unrouted_timeout_ms = 2000;
};

/**
 * @brief One server transport (one ENet host, one port) shared by many sessions.
 *
 * Each session gets a *route*: a transport of its own whose poll() delivers only its
 * connections' events, queued by the mux's poll. A connection is *unrouted* from its on_connect
 * until its first packet, which the transport_router assigns to a route (or refuses); from then
 * on every event of that connection goes to that route, in the order the base delivered them.
 *
 * A route's transport forwards send, disconnect, admit, peer_stats and peer_address to the base
 * for its own connections only: a session naming a connection of another route (or one no route
 * holds) is ignored, so one match never touches another's connection. disconnect() also forgets
 * the connection: its later events, queued or not, are dropped. flush() and local_port() are the
 * base's. A route's wait() does not block (its events come only from the mux's poll): it says
 * whether its queue holds events; block on the mux's wait instead.
 *
 * Peer ids are the base transport's. Allocation-free in steady state: queues and their byte
 * arenas keep their capacity (new connections and refusals may allocate).
 *
 * Not thread-safe: one thread polls the mux and every route. The mux must outlive the routes'
 * users (sessions).
 *
 * @code
 * auto base = retcon::make_enet_server(40000, options);
 * retcon::transport_mux mux{std::move(*base)};
 * const std::size_t r = mux.add_route();
 * retcon::server_session match{config, world, step, mux.route(r)};
 * while (running) {
 *     mux.poll(now_ms(), router);   // router.route() picks a route for each newcomer
 *     match.poll(now_ms());
 *     while (match.should_tick(now_ms())) match.tick();
 *     mux.flush();
 *     mux.wait(until_next_deadline());
 * }
 * @endcode
 */
class transport_mux {
public:
    /// @brief Takes ownership of @p base (a server transport).
    explicit transport_mux(std::unique_ptr<transport> base, mux_options options = {});
    /// @brief Destroys the routes, then the base (which closes its connections its own way).
    ~transport_mux();
    transport_mux(const transport_mux &) = delete;
    transport_mux &operator=(const transport_mux &) = delete;

    /// @brief A new, empty route; reuses the lowest freed index, if any.
    [[nodiscard]] std::size_t add_route();
    /// @brief The transport of route @p index, valid until remove_route(@p index).
    /// @warning @p index must name a route (misuse otherwise, all builds).
    [[nodiscard]] transport &route(std::size_t index);
    /**
     * @brief Removes route @p index: its connections are disconnected, their later events and
     * its queued ones dropped, and its transport becomes invalid. Its index may be reused by a
     * later add_route.
     * @warning @p index must name a route (misuse otherwise, all builds).
     */
    void remove_route(std::size_t index);

    /**
     * @brief Polls the base once: queues every event of a routed connection on its route, asks
     * @p router about first packets, and refuses connections unrouted for longer than
     * mux_options::unrouted_timeout_ms. Routes deliver their queues in their own poll.
     * @warning Not from inside a router callback or a route's poll (misuse, all builds).
     */
    void poll(std::uint64_t now_ms, transport_router &router);
    /// @brief The base's flush (once per loop is enough; routes' flushes forward here too).
    void flush();
    /// @brief The base's wait: blocks until a packet may have arrived or @p timeout passed
    /// (true: woken by readiness or a signal; false: timeout). See transport::wait.
    bool wait(std::chrono::microseconds timeout);
    /// @brief Sends to a connection no route holds (e.g. a reject before refuse); ignored for any
    /// other peer.
    void send_unrouted(peer_id peer, wire::channel ch, std::span<const std::byte> data);
    /// @brief Disconnects a connection no route holds and forgets it (its later events are
    /// dropped); ignored for any other peer.
    void refuse(peer_id peer);

    /// @brief The base transport (for its statistics and addresses; sending through it bypasses
    /// the routes' isolation).
    [[nodiscard]] transport &base() noexcept;
    /// @brief Routes in use.
    [[nodiscard]] std::size_t routes() const noexcept;
    /// @brief Connections no route holds yet.
    [[nodiscard]] std::size_t unrouted() const noexcept;
    /// @brief The base's local port.
    [[nodiscard]] std::uint16_t local_port() const;
    /// @brief True when route @p index has events its next poll will deliver (a host polls a
    /// session only then, or when it is due to tick); false for an index that names no route.
    [[nodiscard]] bool pending(std::size_t index) const noexcept;
    /// @brief True when route @p index holds connection @p peer: routed to it and not ended,
    /// refused or disconnected since. A router that keeps something per routed connection (a
    /// place it counts as taken) forgets it once this turns false.
    [[nodiscard]] bool holds(std::size_t index, peer_id peer) const noexcept;
    /// @brief Payload bytes route @p index received and sent since add_route (0 for an index
    /// that names no route).
    [[nodiscard]] std::uint64_t bytes_in(std::size_t index) const noexcept;
    [[nodiscard]] std::uint64_t bytes_out(std::size_t index) const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace retcon

#endif
