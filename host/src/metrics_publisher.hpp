#ifndef RETCON_HOST_METRICS_PUBLISHER_HPP
#define RETCON_HOST_METRICS_PUBLISHER_HPP

#include <retcon/host/host_metrics.hpp>
#include <retcon/net/transport_mux.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>

#include "hosted_match.hpp"

namespace retcon {

/**
 * @brief The host's counters (docs/hosting.md, "Metrics" and "Inside the host"): the ticking
 * thread counts into `live`; once a second `publish` refreshes each running match's figures
 * and copies them, with totals over ended and running matches, for any thread to read.
 */
class metrics_publisher {
public:
    /// @brief Reserves room for @p max_matches matches: publishing does not allocate.
    explicit metrics_publisher(std::size_t max_matches);

    /// @brief The ticking thread's counters.
    [[nodiscard]] host_metrics &live() noexcept { return live_; }
    /// @brief A second has passed since the last publish.
    [[nodiscard]] bool due(std::uint64_t now_us) const noexcept { return now_us - last_publish_us_ >= 1'000'000; }
    /// @brief Starts the uptime and the publishing period at @p now_us.
    void start(std::uint64_t now_us) noexcept { start_us_ = last_publish_us_ = now_us; }

    /// @brief What the host's other parts count, given at publish time.
    struct counts {
        bool draining = false;
        std::uint64_t admissions = 0;
        std::uint64_t refusals = 0;
        refusal_counts refusals_by_reason{};
        transport_counters transport; ///< the ENet server transport's admission defences
    };
    /// @brief Refreshes the running matches' figures in @p matches (their sessions, @p mux's
    /// routes) and publishes a copy (the ticking thread).
    void publish(std::uint64_t now_us, const counts &c, std::span<const std::unique_ptr<hosted_match>> matches,
                 const transport_mux &mux);
    /// @brief The last copy published (any thread).
    [[nodiscard]] host_metrics published() const;

    /// @brief Splits a tick that ran from @p start_ns to @p end_ns into hashing and recording
    /// (step end to the confirmed-frame callback) and broadcasting (after it) in @p costs;
    /// all of it is broadcast when the step or the callback did not run.
    static void account_tick(tick_costs &costs, std::uint64_t step_end_ns, std::uint64_t confirmed_ns,
                             std::uint64_t start_ns, std::uint64_t end_ns) noexcept;

private:
    host_metrics live_;
    mutable std::mutex mutex_;
    host_metrics published_;
    std::uint64_t start_us_ = 0, last_publish_us_ = 0;
};

} // namespace retcon

#endif
