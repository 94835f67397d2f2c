#ifndef RETCON_NET_SIM_NETWORK_HPP
#define RETCON_NET_SIM_NETWORK_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "transport.hpp"

namespace retcon {

/// @brief Impairments applied to one direction of a simulated link.
struct link_conditions {
    std::uint32_t latency_ms = 0; ///< one-way base delay
    std::uint32_t jitter_ms = 0;  ///< uniform extra delay in [0, jitter]
    double loss = 0.0;            ///< probability an unreliable packet is dropped
    double duplicate = 0.0;       ///< probability an unreliable packet is delivered twice
    double reorder = 0.0;         ///< probability an unreliable packet gets extra delay (arrives late)
};

/**
 * @brief A deterministic in-process network for tests: one server endpoint and any number of
 * client endpoints, each direction with its own seeded impairments, all driven by a virtual
 * clock (the `now_ms` passed to poll). Reliable channels are never lost, duplicated or
 * reordered within a channel (like ENet's), only delayed — packets on different reliable
 * channels may overtake each other, as they can over ENet; the unreliable channel suffers
 * every impairment.
 *
 * A client endpoint's `reconnect` ends its link (the server sees it close) and moves the endpoint
 * to a new link with the same conditions, numbered after every existing one: the indices below
 * name links, in the order they were made. The client hears of a disconnect from the server
 * after the reliable packets the server sent before it, as over ENet.
 *
 * Its transports' `wait` returns false at once: time is virtual (the caller advances it), so no
 * packet can arrive while the caller blocks; a loop driven by a sim_network must not rely on
 * `wait` to pace itself.
 *
 * @code
 * retcon::sim_network net{42};
 * auto server = net.server();
 * auto client = net.connect({80, 15, 0.05}, {80, 15, 0.05});
 * @endcode
 */
class sim_network {
public:
    explicit sim_network(std::uint64_t seed);
    ~sim_network();
    sim_network(const sim_network &) = delete;
    sim_network &operator=(const sim_network &) = delete;

    /// @brief The server's transport (created once; the network keeps ownership).
    transport &server();
    /// @brief A new client endpoint; it connects during its first poll.
    transport &connect(const link_conditions &up, const link_conditions &down);
    /// @brief Links made so far (connect and reconnections); the newest is `links() - 1`.
    [[nodiscard]] std::size_t links() const;
    /// @brief Changes a client's link conditions (index in connection order).
    void set_conditions(std::size_t client, const link_conditions &up, const link_conditions &down);
    /// @brief Cuts a client's link both ways (nothing is delivered) until restored.
    void set_blackout(std::size_t client, bool blackout);
    /// @brief Bytes carried so far by a client's link (payload only, no header layers).
    [[nodiscard]] std::uint64_t bytes_up(std::size_t client) const;
    [[nodiscard]] std::uint64_t bytes_down(std::size_t client) const;
    /// @brief Injects raw bytes as if client @p client sent them (hostile-client tests).
    void inject_from_client(std::size_t client, wire::channel ch, std::span<const std::byte> data,
                            std::uint64_t now_ms);

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace retcon

#endif
