#ifndef RETCON_HOST_TOOLS_AGONES_STANDIN_HPP
#define RETCON_HOST_TOOLS_AGONES_STANDIN_HPP

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <retcon/ecs/error.hpp>

namespace retcon {

/**
 * @brief How the Agones SDK sidecar stand-in is set up (docs/agones-standin.md).
 *
 * The defaults are a GameServer spec with Agones' defaults: health checked (5 s initial delay,
 * 5 s period, 3 failures) and one Counter `rooms` at 0 of 10.
 */
struct agones_standin_options {
    /// @brief Address the HTTP gateway listens on (the real sidecar binds localhost).
    std::string bind = "127.0.0.1";
    /// @brief Port of the HTTP gateway; 0 picks a free one (see agones_standin::port()).
    std::uint16_t port = 0;

    /// @name GameServer `spec.health`
    /// @{
    bool health_disabled = false;
    std::uint32_t initial_delay_s = 5; ///< the first check, this long after the start (or a restart)
    std::uint32_t period_s =
        5; ///< then one check a period: it fails without a ping in the period before it; > 0 unless disabled
    std::uint32_t failure_threshold = 3; ///< failed checks in a row that make it `Unhealthy`; > 0
    /// @}

    /// @brief GameServer `spec.counters`: name, count, capacity (0 ≤ count ≤ capacity).
    std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> counters{{"rooms", 0, 10}};
    std::string name = "local"; ///< `object_meta.name`
    // NOLINTNEXTLINE(readability-identifier-naming): `namespace` is a keyword
    std::string namespace_ = "default"; ///< `object_meta.namespace`

    /// @brief The clock of the health and reserve timers and of request records, in monotonic
    /// milliseconds. Empty: `std::chrono::steady_clock`. Tests inject a manual clock, turn
    /// `timer_thread` off and call agones_standin::tick().
    std::function<std::uint64_t()> clock_ms;
    /// @brief Evaluate the health and reserve timers every 50 ms on a thread of its own.
    bool timer_thread = true;
    /// @brief Receives one line per request (method, path, status, body truncated to about
    /// 200 bytes) and one line per event of its own (a state change by a timer, a restart),
    /// those starting with "agones stand-in: ". Called from the server's threads, one call at
    /// a time. Empty: each line goes to stdout, flushed.
    std::function<void(std::string_view)> log;
};

/**
 * @brief A stand-in for the Agones SDK sidecar's HTTP/REST gateway (Agones 1.56), in process.
 *
 * The real sidecar needs Kubernetes; this one keeps the GameServer in memory and implements
 * the gateway's documented contract: the endpoints, their JSON (proto field names, int64 as
 * strings, unset fields emitted), their errors, the watch stream, Counters, and — unlike
 * Agones' own local SDK server — health enforcement (`Unhealthy` after missed pings) and the
 * reserve timer. It is a test double, not Agones (docs/agones-standin.md says where it differs).
 *
 * Beyond the contract it offers observation (every request, every conformance feature, the
 * GameServer's state) and test hooks: playing the allocator, evaluating timers at an injected
 * clock, and restarting the sidecar (the GameServer survives, as it lives in Kubernetes).
 *
 * All members are thread-safe. The destructor stops the server, ends the watch streams and
 * joins every thread it started.
 */
class agones_standin {
public:
    /// @brief One HTTP request as the stand-in answered it.
    struct request_record {
        std::uint64_t at_ms = 0; ///< options' clock when it was answered (a watch: when it opened)
        std::string method, path, body;
        int status = 0;
    };

    /**
     * @brief Starts listening; the GameServer starts `Scheduled`.
     * @return the stand-in, or an error: invalid options (`invalid_argument`: a zero health
     * period or threshold, a counter out of range, a duplicate counter) or an address it cannot
     * listen on (`io`, naming the address and port).
     */
    [[nodiscard]] static result<std::unique_ptr<agones_standin>> start(agones_standin_options options);

    ~agones_standin();
    agones_standin(const agones_standin &) = delete;
    agones_standin &operator=(const agones_standin &) = delete;

    /// @brief The port it listens on (the same one after a restart).
    [[nodiscard]] std::uint16_t port() const;

    /// @name Observation
    /// @{
    [[nodiscard]] std::string state() const; ///< "Scheduled", "Ready", "Reserved", "Allocated", "Shutdown", "Unhealthy"
    /// @brief The labels, keys as stored (`agones.dev/sdk-<key>` for those the SDK set).
    [[nodiscard]] std::map<std::string, std::string> labels() const;
    /// @brief The annotations, keys as stored (`agones.dev/sdk-<key>`, and the allocator's
    /// `agones.dev/last-allocated`).
    [[nodiscard]] std::map<std::string, std::string> annotations() const;
    /// @brief A counter's {count, capacity}; nullopt when there is none of that name.
    [[nodiscard]] std::optional<std::pair<std::int64_t, std::int64_t>> counter(const std::string &name) const;
    /// @brief Every request answered, in the order answered (test endpoints included).
    [[nodiscard]] std::vector<request_record> requests() const;
    /// @brief The conformance feature names recorded (docs/agones-standin.md), in order of arrival.
    [[nodiscard]] std::vector<std::string> features() const;
    /// @brief Health pings received (each JSON object POSTed to /health is one).
    [[nodiscard]] std::uint64_t health_pings() const;
    /// @}

    /// @name Test hooks
    /// @{
    /**
     * @brief Plays the allocator: a GameServerAllocation whose counter action is `rooms`
     * Increment 1. A `Ready` or `Reserved` server becomes `Allocated`; an `Allocated` one stays
     * so (high density). `rooms` is incremented, clamped to [0, capacity] as the allocator
     * does; the annotation `agones.dev/last-allocated` gets a new RFC 3339 time with
     * nanoseconds (never the previous value); watchers see one change.
     * @return false, changing nothing, when the server is in any other state.
     */
    bool allocate();
    /// @brief Evaluates the health and reserve timers at the clock's current time (the timer
    /// thread does this every 50 ms). While the sidecar is down (restart()) nothing runs.
    void tick();
    /**
     * @brief A sidecar restart: stops listening now (watch streams end, new connections are
     * refused), keeps the GameServer, and listens again on the same port after @p down_ms on
     * a thread of its own. The health checker starts over (initial delay, no failures) when
     * it listens again; a reserve timer keeps its deadline. Returns at once.
     */
    void restart(std::uint32_t down_ms);
    /// @brief Waits up to @p timeout_ms of real time for the state @p state; true if reached.
    [[nodiscard]] bool wait_for_state(const std::string &state, std::uint32_t timeout_ms) const;
    /// @}

    struct impl;

private:
    explicit agones_standin(std::unique_ptr<impl> p);
    std::unique_ptr<impl> impl_;
};

} // namespace retcon

#endif
