#ifndef RETCON_HOST_HOST_METRICS_HPP
#define RETCON_HOST_HOST_METRICS_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace retcon {

/**
 * @brief Tick lateness (actual start of a frame's tick minus its deadline, as the host's
 * scheduler measures it) in fixed buckets: 10 µs wide up to 100 µs, 50 µs up to 1 ms, 250 µs
 * up to 10 ms, then one bucket for the rest. Recording is a few instructions and never
 * allocates (docs/hosting.md, "Metrics").
 */
class lateness_histogram {
public:
    static constexpr std::size_t bucket_count = 10 + 18 + 36 + 1;
    /// @brief Upper bound (exclusive, µs) of bucket @p i; the last bucket has none (~0).
    [[nodiscard]] static std::uint64_t upper_bound_us(std::size_t i) noexcept;

    void record(std::uint64_t lateness_us) noexcept;
    void add(const lateness_histogram &other) noexcept;
    [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
    [[nodiscard]] std::uint64_t sum_us() const noexcept { return sum_us_; }
    [[nodiscard]] std::uint64_t max_us() const noexcept { return max_us_; }
    [[nodiscard]] std::uint64_t bucket(std::size_t i) const noexcept { return buckets_[i]; }
    /// @brief The upper bound of the bucket holding quantile @p q (0..1); the maximum for the
    /// last bucket; 0 when empty.
    [[nodiscard]] std::uint64_t quantile_us(double q) const noexcept;
    /// @brief This histogram minus an earlier copy of itself (a measurement window).
    [[nodiscard]] lateness_histogram since(const lateness_histogram &earlier) const noexcept;

private:
    std::array<std::uint64_t, bucket_count> buckets_{};
    std::uint64_t count_ = 0, sum_us_ = 0, max_us_ = 0;
};

/// @brief One running match's counters.
struct match_metrics {
    std::string match_id{};
    std::uint32_t players = 0;
    std::uint32_t spectators_and_pending = 0; ///< connections that are not players
    std::uint32_t frame = 0;
    std::uint64_t ticks = 0;
    std::uint64_t late_ticks = 0; ///< ticks that started 2 ms or more after their deadline
    std::uint64_t max_lateness_us = 0;
    std::uint64_t desyncs_verified = 0;
    std::uint64_t replaced_inputs = 0;
    std::uint64_t bytes_in = 0, bytes_out = 0;
};

/// @brief Where a tick's time went, summed over every tick of every match (nanoseconds): the
/// host times each part of a match frame on the ticking thread.
struct tick_costs {
    std::uint64_t simulate_ns = 0;    ///< the game's step
    std::uint64_t hash_record_ns = 0; ///< hashing the world, recording the frame (keyframes, chunks)
    std::uint64_t broadcast_ns = 0;   ///< confirming inputs and sending them to the clients
    std::uint64_t receive_ns = 0;     ///< the sessions handling what arrived (session polls)
    std::uint64_t network_ns = 0;     ///< the ENet host's service (sockets, acks, resends) and routing
    std::uint64_t frames = 0;         ///< match frames ticked
};

/// @brief Connections the host's admission refused, by why: the reason the client was sent, or
/// dropped unanswered (docs/hosting.md, "Metrics"). The log holds refusals back to one line a
/// second; these count every one.
struct refusal_counts {
    /// @brief Refusals answered with a reject, indexed by the wire::reject_reason value sent
    /// (`reject_reasons` in <retcon/net/protocol.hpp> names them; index 0 is unused).
    std::array<std::uint64_t, 16> by_reason{};
    std::uint64_t malformed = 0;    ///< a malformed hello, or a packet before the hello (no reply)
    std::uint64_t hello_budget = 0; ///< past its address's hello budget (no reply)
};

/// @brief The host's counters, per process and per match, as one consistent copy.
struct host_metrics {
    std::uint64_t uptime_ms = 0;
    bool draining = false;
    std::uint32_t matches = 0;
    std::uint32_t players = 0;
    std::uint64_t matches_opened = 0, matches_ended = 0, matches_failed = 0;
    /// @brief Matches whose replay could not be written (match_result::recording_failed),
    /// counted when the recording fails.
    std::uint64_t recordings_failed = 0;
    std::uint64_t admissions = 0;
    std::uint64_t refusals = 0;            ///< connections refused (tokens, drain, full, malformed)
    refusal_counts refusals_by_reason{};   ///< the same refusals, by why (they sum to `refusals`)
    std::uint64_t connects_challenged = 0; ///< ENet CONNECTs answered with a connect cookie (transport_counters)
    std::uint64_t pending_dropped = 0;     ///< connections dropped before admission to keep room (transport_counters)
    std::uint64_t oversized_packets = 0;   ///< connections ended for a packet over the size limit (transport_counters)
    std::uint64_t desyncs_verified = 0;    ///< totals, including ended matches
    std::uint64_t replaced_inputs = 0;
    std::uint64_t bytes_in = 0, bytes_out = 0;
    lateness_histogram lateness{};
    tick_costs costs{};
    /// @brief The replay encoder's thread (docs/hosting.md, "Threads"): jobs it wrote, the CPU time
    /// it spent on them, and hand-offs that found no free slot (written on the ticking thread).
    std::uint64_t encoder_jobs = 0, encoder_ns = 0, encoder_overflows = 0;
    std::vector<match_metrics> per_match{}; ///< the running matches
};

/// @brief The metrics as Prometheus text exposition (version 0.0.4): `retcon_host_*` per
/// process, `retcon_match_*` with a `match` label per running match (docs/hosting.md).
[[nodiscard]] std::string to_prometheus(const host_metrics &m);

} // namespace retcon

#endif
