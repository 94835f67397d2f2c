#ifndef RETCON_HOST_AGONES_HPP
#define RETCON_HOST_AGONES_HPP

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <retcon/ecs/error.hpp>

#include "orchestrator.hpp"

namespace retcon {

/// @brief How the host talks to the Agones SDK sidecar (docs/hosting.md, "Agones").
struct agones_options {
    std::string sdk_host = "127.0.0.1";
    /// @brief The SDK's HTTP gateway port (0: `AGONES_SDK_HTTP_PORT`, else 9358).
    std::uint16_t sdk_port = 0;
    /// @brief How often the health thread may POST /health (at most 2000 ms: the fleet's
    /// `health.periodSeconds` must exceed twice this).
    std::uint32_t health_interval_ms = 1000;
    /// @brief Health is reported only while the host's heartbeat moved this recently: a hung
    /// tick stops it, so Agones marks the server Unhealthy.
    std::uint32_t heartbeat_window_ms = 1000;
    /// @brief Between attempts while the sidecar does not answer (it may start after the server).
    std::uint32_t retry_ms = 250;
    /// @brief Timeout of each short request (connect, read and write).
    std::uint32_t request_timeout_ms = 2000;
    /// @brief Read timeout of the watch stream: the stream is quiet while the GameServer does
    /// not change; after this long it is re-opened. Long, because the sidecar may keep serving
    /// a watch its client dropped until the sidecar itself ends.
    std::uint32_t watch_timeout_ms = 600000;
    /// @brief The Counter the allocator increments for each match it places here (high-density
    /// fleets); its capacity is set once at start to the host's `max_matches` (or its
    /// `match_limit`, if lower), and the server decrements it when a match ends. Empty: no counter.
    std::string rooms_counter = "rooms";
    /// @brief An allocation that opens no match within this long is given back (the counter is
    /// decremented), so a matchmaker's no-shows do not fill the server.
    std::uint32_t allocation_timeout_ms = 60000;
    /// @brief How long `finish` waits (from its start) for the watch to show `Shutdown`, or
    /// for SIGTERM, before exiting anyway.
    std::uint32_t shutdown_wait_ms = 30000;
    /// @brief Labels set once the sidecar answers (Agones prefixes them `agones.dev/sdk-`):
    /// fleet-level facts a GameServerAllocation can select on. Two are always set:
    /// `retcon-protocol` (the wire protocol version the server speaks) and `retcon-accepting`
    /// ("true", then "false" once the host opens no new match: draining or its match limit
    /// reached), for the allocation's selectors.
    std::vector<std::pair<std::string, std::string>> labels{};
    /// @brief Annotations set once the sidecar answers.
    std::vector<std::pair<std::string, std::string>> annotations{};
};

/// @brief What the Agones orchestrator has seen and done (any thread; for logs and tests).
struct agones_status {
    bool sidecar_answered = false;
    bool ready_sent = false;
    std::string state;                 ///< the GameServer's last state on the watch ("Ready", "Allocated", ...)
    std::uint64_t allocations = 0;     ///< allocations seen (changes of `agones.dev/last-allocated`)
    std::uint64_t rooms_released = 0;  ///< decrements of the rooms counter acknowledged by the sidecar
    std::uint64_t health_sent = 0;     ///< health reports the sidecar acknowledged
    std::uint64_t health_withheld = 0; ///< intervals in which the heartbeat had not moved
    std::uint64_t watch_opened = 0;    ///< times the watch stream was (re)opened
    std::uint64_t watch_updates = 0;   ///< GameServers read from the watch (at most 20 a second, after a burst of 20)
    std::uint64_t control_retries =
        0; ///< control requests (ready, labels, rooms, shutdown) that failed and wait a retry period
    bool shutdown_sent = false;
};

/**
 * @brief Runs the host as an Agones GameServer through the SDK's HTTP gateway on localhost
 * (docs/hosting.md, "Agones"; the SDK's REST contract as of Agones 1.56).
 *
 * Threads of its own, none of them the ticking thread:
 * - **control**: retries until the sidecar answers, sets the labels, annotations and the rooms
 *   counter's capacity, POSTs /ready; then gives back rooms (`countDiff: -1`) as matches end
 *   and allocations expire, retrying each until the sidecar takes it.
 * - **health**: POSTs /health every `health_interval_ms` while the host's heartbeat moves.
 * - **watch**: follows GET /watch/gameserver, re-opening it on end or error; counts an
 *   allocation at each change of the `agones.dev/last-allocated` annotation (or, without it,
 *   at the move to `Allocated`), and notices `Shutdown`.
 *
 * `finish` POSTs /shutdown and waits until the watch shows `Shutdown` or SIGTERM arrives
 * (at most `shutdown_wait_ms`). The server never increments the rooms counter nor sets its
 * count: that would race the allocator.
 */
class agones_orchestrator final : public orchestrator {
public:
    explicit agones_orchestrator(agones_options options);
    ~agones_orchestrator() override;
    agones_orchestrator(const agones_orchestrator &) = delete;
    agones_orchestrator &operator=(const agones_orchestrator &) = delete;

    [[nodiscard]] std::string_view name() const noexcept override { return "agones"; }
    void start(match_host &host) override;
    void terminate() noexcept override;
    int finish(int status) override;

    [[nodiscard]] agones_status status() const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace retcon

#endif
