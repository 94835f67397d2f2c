#include "metrics_publisher.hpp"

namespace retcon {

metrics_publisher::metrics_publisher(std::size_t max_matches) {
    live_.per_match.reserve(max_matches);
    published_.per_match.reserve(max_matches);
}

void metrics_publisher::publish(std::uint64_t now_us, const counts &c,
                                std::span<const std::unique_ptr<hosted_match>> matches, const transport_mux &mux) {
    last_publish_us_ = now_us;
    live_.uptime_ms = (now_us - start_us_) / 1000;
    live_.draining = c.draining;
    live_.admissions = c.admissions;
    live_.refusals = c.refusals;
    live_.refusals_by_reason = c.refusals_by_reason;
    live_.connects_challenged = c.transport.connects_challenged;
    live_.pending_dropped = c.transport.pending_dropped;
    live_.oversized_packets = c.transport.oversized_packets;
    live_.matches = 0;
    live_.players = 0;
    live_.per_match.clear();
    for (const auto &mp : matches) {
        if (!mp) continue;
        hosted_match &m = *mp;
        ++live_.matches;
        m.m.players = m.session ? static_cast<std::uint32_t>(m.session->players()) : 0;
        live_.players += m.m.players;
        m.m.frame = m.session ? m.session->frame() : 0;
        if (m.session) {
            const auto t = m.session->totals();
            m.m.desyncs_verified = t.desyncs;
            m.m.replaced_inputs = t.replaced_inputs;
        }
        m.m.bytes_in = mux.bytes_in(m.route);
        m.m.bytes_out = mux.bytes_out(m.route);
        live_.per_match.push_back(m.m);
    }
    std::lock_guard lock{mutex_};
    published_ = live_;
    for (const auto &x : live_.per_match) { // totals: ended matches plus running ones
        published_.desyncs_verified += x.desyncs_verified;
        published_.replaced_inputs += x.replaced_inputs;
        published_.bytes_in += x.bytes_in;
        published_.bytes_out += x.bytes_out;
    }
}

host_metrics metrics_publisher::published() const {
    std::lock_guard lock{mutex_};
    return published_;
}

void metrics_publisher::account_tick(tick_costs &costs, std::uint64_t step_end_ns, std::uint64_t confirmed_ns,
                                     std::uint64_t start_ns, std::uint64_t end_ns) noexcept {
    if (step_end_ns != 0 && confirmed_ns >= step_end_ns) {
        costs.hash_record_ns += confirmed_ns - step_end_ns;
        costs.broadcast_ns += end_ns - confirmed_ns;
    } else {
        costs.broadcast_ns += end_ns - start_ns;
    }
    ++costs.frames;
}

} // namespace retcon
