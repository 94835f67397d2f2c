#ifndef RETCON_NET_SRC_SERVER_CONNECTIONS_HPP
#define RETCON_NET_SRC_SERVER_CONNECTIONS_HPP

#include <retcon/net/stats.hpp>
#include <retcon/net/transport.hpp>

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <utility>

#include "server_connection.hpp"

namespace retcon::internal {

/**
 * @brief A server's connections by peer, in peer order (docs/net.md, "Inside the sessions"),
 * and the counters of those that have left, so the session's totals outlive its connections.
 */
class server_connections {
public:
    using map = std::map<peer_id, server_connection>;

    /// @brief The connection of @p peer, made (or, for a peer the transport connected again,
    /// kept) and connected from @p address at @p now_ms.
    server_connection &connect(peer_id peer, std::string address, std::uint64_t now_ms) {
        server_connection &c = conns_.try_emplace(peer, peer).first->second;
        c.connected(std::move(address), now_ms);
        return c;
    }

    /// @brief The connection of @p peer, or null.
    [[nodiscard]] server_connection *find(peer_id peer) noexcept {
        const auto it = conns_.find(peer);
        return it == conns_.end() ? nullptr : &it->second;
    }
    [[nodiscard]] const server_connection *find(peer_id peer) const noexcept {
        const auto it = conns_.find(peer);
        return it == conns_.end() ? nullptr : &it->second;
    }

    /// @brief Forgets the connection of @p peer (if any), keeping its replaced inputs and
    /// desyncs in the totals (a connection before its hello has none).
    void remove(peer_id peer) {
        const auto it = conns_.find(peer);
        if (it == conns_.end()) return;
        const session_stats &s = it->second.stats();
        departed_.replaced_inputs += s.replaced_inputs;
        departed_.desyncs += s.desyncs;
        departed_.unverified_desyncs += s.unverified_desyncs;
        conns_.erase(it);
    }

    /// @brief Active connections without a player slot.
    [[nodiscard]] std::size_t spectators() const {
        return static_cast<std::size_t>(std::count_if(
            conns_.begin(), conns_.end(), [](const auto &kv) { return kv.second.active() && kv.second.slot() < 0; }));
    }

    /// @brief Replaced inputs and desyncs of every connection, present and past, and the byte
    /// rates of the present ones.
    [[nodiscard]] session_stats totals() const {
        session_stats t;
        t.replaced_inputs = departed_.replaced_inputs;
        t.desyncs = departed_.desyncs;
        t.unverified_desyncs = departed_.unverified_desyncs;
        for (const auto &[peer, c] : conns_) {
            const session_stats &s = c.stats();
            t.replaced_inputs += s.replaced_inputs;
            t.desyncs += s.desyncs;
            t.unverified_desyncs += s.unverified_desyncs;
            t.bytes_in_per_s += s.bytes_in_per_s;
            t.bytes_out_per_s += s.bytes_out_per_s;
        }
        return t;
    }

    [[nodiscard]] bool empty() const noexcept { return conns_.empty(); }
    [[nodiscard]] map::iterator begin() noexcept { return conns_.begin(); }
    [[nodiscard]] map::iterator end() noexcept { return conns_.end(); }
    [[nodiscard]] map::const_iterator begin() const noexcept { return conns_.begin(); }
    [[nodiscard]] map::const_iterator end() const noexcept { return conns_.end(); }

private:
    map conns_;
    session_stats departed_; // counters of connections that have left
};

} // namespace retcon::internal

#endif
