#include <retcon/host/host_metrics.hpp>

#include <retcon/net/protocol.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <tuple>

namespace retcon {

// 10 buckets of 10 µs up to 100 µs, 18 of 50 µs up to 1 ms, 36 of 250 µs up to 10 ms, the rest.
std::uint64_t lateness_histogram::upper_bound_us(std::size_t i) noexcept {
    if (i < 10) return 10 * (i + 1);
    if (i < 28) return 100 + 50 * (i - 9);
    if (i < 64) return 1000 + 250 * (i - 27);
    return ~std::uint64_t{0};
}

void lateness_histogram::record(std::uint64_t us) noexcept {
    std::size_t i;
    if (us < 100) i = us / 10;
    else if (us < 1000)
        i = 10 + (us - 100) / 50;
    else if (us < 10000)
        i = 28 + (us - 1000) / 250;
    else
        i = bucket_count - 1;
    ++buckets_[i];
    ++count_;
    sum_us_ += us;
    max_us_ = std::max(max_us_, us);
}

void lateness_histogram::add(const lateness_histogram &o) noexcept {
    for (std::size_t i = 0; i < bucket_count; ++i) buckets_[i] += o.buckets_[i];
    count_ += o.count_;
    sum_us_ += o.sum_us_;
    max_us_ = std::max(max_us_, o.max_us_);
}

std::uint64_t lateness_histogram::quantile_us(double q) const noexcept {
    if (count_ == 0) return 0;
    const auto rank = static_cast<std::uint64_t>(q * static_cast<double>(count_ - 1)) + 1; // 1-based
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < bucket_count; ++i) {
        seen += buckets_[i];
        if (seen >= rank) return i + 1 == bucket_count ? max_us_ : std::min(upper_bound_us(i), max_us_);
    }
    return max_us_;
}

lateness_histogram lateness_histogram::since(const lateness_histogram &e) const noexcept {
    lateness_histogram d = *this;
    for (std::size_t i = 0; i < bucket_count; ++i) d.buckets_[i] -= e.buckets_[i];
    d.count_ -= e.count_;
    d.sum_us_ -= e.sum_us_;
    // The maximum of the window alone is not known; the upper bound of its highest bucket is.
    d.max_us_ = 0;
    for (std::size_t i = bucket_count; i-- > 0;)
        if (d.buckets_[i] != 0) {
            d.max_us_ = i + 1 == bucket_count ? max_us_ : upper_bound_us(i);
            break;
        }
    return d;
}

namespace {

constexpr bool every_reason_counted() {
    for (const auto &row : wire::reject_reasons)
        if (static_cast<std::size_t>(row.reason) >= std::tuple_size_v<decltype(refusal_counts::by_reason)>)
            return false;
    return true;
}
static_assert(every_reason_counted(), "refusal_counts::by_reason needs a counter for every reject reason");

void line(std::string &out, const char *fmt, auto... args) {
    char buf[256];
    std::snprintf(buf, sizeof buf, fmt, args...);
    out += buf;
}

void help(std::string &out, const char *name, const char *type, const char *text) {
    line(out, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

/// Match ids are [A-Za-z0-9._-] (docs/join-tokens.md); anything else is escaped anyway.
std::string label(const std::string &id) {
    std::string s;
    for (const char c : id) {
        if (c == '"' || c == '\\') s += '\\';
        if (c == '\n') s += "\\n";
        else
            s += c;
    }
    return s;
}

} // namespace

std::string to_prometheus(const host_metrics &m) {
    std::string o;
    o.reserve(4096 + m.per_match.size() * 1024);
    const auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
    help(o, "retcon_host_uptime_seconds", "gauge", "Seconds since the host started.");
    line(o, "retcon_host_uptime_seconds %.3f\n", static_cast<double>(m.uptime_ms) / 1000.0);
    help(o, "retcon_host_draining", "gauge", "1 while the host drains (admits nobody new).");
    line(o, "retcon_host_draining %d\n", m.draining ? 1 : 0);
    help(o, "retcon_host_matches", "gauge", "Matches running.");
    line(o, "retcon_host_matches %u\n", m.matches);
    help(o, "retcon_host_players", "gauge", "Players connected, over every match.");
    line(o, "retcon_host_players %u\n", m.players);
    help(o, "retcon_host_matches_opened_total", "counter", "Matches opened.");
    line(o, "retcon_host_matches_opened_total %llu\n", u(m.matches_opened));
    help(o, "retcon_host_matches_ended_total", "counter", "Matches ended (results written).");
    line(o, "retcon_host_matches_ended_total %llu\n", u(m.matches_ended));
    help(o, "retcon_host_matches_failed_total", "counter",
         "Matches ended by an exception in the game or a misuse report.");
    line(o, "retcon_host_matches_failed_total %llu\n", u(m.matches_failed));
    help(o, "retcon_host_recordings_failed_total", "counter",
         "Matches whose replay could not be written (their results say recording_failed).");
    line(o, "retcon_host_recordings_failed_total %llu\n", u(m.recordings_failed));
    help(o, "retcon_host_admissions_total", "counter", "Connections routed to a match.");
    line(o, "retcon_host_admissions_total %llu\n", u(m.admissions));
    help(o, "retcon_host_refusals_total", "counter", "Connections refused (join tokens, drain, full, malformed).");
    line(o, "retcon_host_refusals_total %llu\n", u(m.refusals));
    help(o, "retcon_host_refusals_by_reason_total", "counter",
         "Connections refused, by the reason sent (docs/protocol.md), or malformed or hello_budget (dropped "
         "unanswered).");
    for (const auto &row : wire::reject_reasons)
        line(o, "retcon_host_refusals_by_reason_total{reason=\"%s\"} %llu\n", row.name,
             u(m.refusals_by_reason.by_reason[static_cast<std::size_t>(row.reason)]));
    line(o, "retcon_host_refusals_by_reason_total{reason=\"malformed\"} %llu\n", u(m.refusals_by_reason.malformed));
    line(o, "retcon_host_refusals_by_reason_total{reason=\"hello_budget\"} %llu\n",
         u(m.refusals_by_reason.hello_budget));
    help(o, "retcon_host_connects_challenged_total", "counter",
         "ENet CONNECTs answered with a connect cookie instead of a connection (spoofed ones never return).");
    line(o, "retcon_host_connects_challenged_total %llu\n", u(m.connects_challenged));
    help(o, "retcon_host_pending_dropped_total", "counter",
         "Connections dropped before admission to keep room for newcomers (handshake deadline, caps).");
    line(o, "retcon_host_pending_dropped_total %llu\n", u(m.pending_dropped));
    help(o, "retcon_host_oversized_packets_total", "counter",
         "Connections ended for sending a packet over the transport's size limit.");
    line(o, "retcon_host_oversized_packets_total %llu\n", u(m.oversized_packets));
    help(o, "retcon_host_desyncs_verified_total", "counter",
         "Desyncs an uploaded snapshot verified, ended matches included.");
    line(o, "retcon_host_desyncs_verified_total %llu\n", u(m.desyncs_verified));
    help(o, "retcon_host_replaced_inputs_total", "counter", "Inputs the server substituted, ended matches included.");
    line(o, "retcon_host_replaced_inputs_total %llu\n", u(m.replaced_inputs));
    help(o, "retcon_host_bytes_in_total", "counter", "Payload bytes received, ended matches included.");
    line(o, "retcon_host_bytes_in_total %llu\n", u(m.bytes_in));
    help(o, "retcon_host_bytes_out_total", "counter", "Payload bytes sent, ended matches included.");
    line(o, "retcon_host_bytes_out_total %llu\n", u(m.bytes_out));
    help(o, "retcon_host_tick_lateness_seconds", "histogram", "Start of a match frame's tick minus its deadline.");
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i + 1 < lateness_histogram::bucket_count; ++i) {
        cumulative += m.lateness.bucket(i);
        line(o, "retcon_host_tick_lateness_seconds_bucket{le=\"%.6f\"} %llu\n",
             static_cast<double>(lateness_histogram::upper_bound_us(i)) / 1e6, u(cumulative));
    }
    line(o, "retcon_host_tick_lateness_seconds_bucket{le=\"+Inf\"} %llu\n", u(m.lateness.count()));
    line(o, "retcon_host_tick_lateness_seconds_sum %.6f\n", static_cast<double>(m.lateness.sum_us()) / 1e6);
    line(o, "retcon_host_tick_lateness_seconds_count %llu\n", u(m.lateness.count()));
    help(o, "retcon_host_tick_lateness_max_seconds", "gauge", "Largest tick lateness since the start.");
    line(o, "retcon_host_tick_lateness_max_seconds %.6f\n", static_cast<double>(m.lateness.max_us()) / 1e6);
    help(o, "retcon_host_tick_seconds_total", "counter", "Ticking thread time by part of a match frame.");
    const auto part = [&](const char *name, std::uint64_t ns) {
        line(o, "retcon_host_tick_seconds_total{part=\"%s\"} %.6f\n", name, static_cast<double>(ns) / 1e9);
    };
    part("simulate", m.costs.simulate_ns);
    part("hash_record", m.costs.hash_record_ns);
    part("broadcast", m.costs.broadcast_ns);
    part("receive", m.costs.receive_ns);
    part("network", m.costs.network_ns);
    help(o, "retcon_host_match_frames_total", "counter", "Match frames ticked, over every match.");
    line(o, "retcon_host_match_frames_total %llu\n", u(m.costs.frames));
    help(o, "retcon_host_encoder_jobs_total", "counter", "Replay chunks and keyframes the encoder thread wrote.");
    line(o, "retcon_host_encoder_jobs_total %llu\n", u(m.encoder_jobs));
    help(o, "retcon_host_encoder_seconds_total", "counter", "CPU time the encoder thread spent writing them.");
    line(o, "retcon_host_encoder_seconds_total %.6f\n", static_cast<double>(m.encoder_ns) / 1e9);
    help(o, "retcon_host_encoder_overflows_total", "counter",
         "Replay hand-offs that found no free slot and were written on the ticking thread.");
    line(o, "retcon_host_encoder_overflows_total %llu\n", u(m.encoder_overflows));

    help(o, "retcon_match_players", "gauge", "Players connected to the match.");
    for (const auto &x : m.per_match)
        line(o, "retcon_match_players{match=\"%s\"} %u\n", label(x.match_id).c_str(), x.players);
    help(o, "retcon_match_frame", "gauge", "The match's next frame.");
    for (const auto &x : m.per_match)
        line(o, "retcon_match_frame{match=\"%s\"} %u\n", label(x.match_id).c_str(), x.frame);
    help(o, "retcon_match_late_ticks_total", "counter", "Ticks that started 2 ms or more after their deadline.");
    for (const auto &x : m.per_match)
        line(o, "retcon_match_late_ticks_total{match=\"%s\"} %llu\n", label(x.match_id).c_str(), u(x.late_ticks));
    help(o, "retcon_match_tick_lateness_max_seconds", "gauge", "Largest tick lateness of the match.");
    for (const auto &x : m.per_match)
        line(o, "retcon_match_tick_lateness_max_seconds{match=\"%s\"} %.6f\n", label(x.match_id).c_str(),
             static_cast<double>(x.max_lateness_us) / 1e6);
    help(o, "retcon_match_desyncs_verified_total", "counter", "Desyncs an uploaded snapshot verified.");
    for (const auto &x : m.per_match)
        line(o, "retcon_match_desyncs_verified_total{match=\"%s\"} %llu\n", label(x.match_id).c_str(),
             u(x.desyncs_verified));
    help(o, "retcon_match_replaced_inputs_total", "counter", "Inputs the server substituted.");
    for (const auto &x : m.per_match)
        line(o, "retcon_match_replaced_inputs_total{match=\"%s\"} %llu\n", label(x.match_id).c_str(),
             u(x.replaced_inputs));
    help(o, "retcon_match_bytes_in_total", "counter", "Payload bytes received from the match's connections.");
    for (const auto &x : m.per_match)
        line(o, "retcon_match_bytes_in_total{match=\"%s\"} %llu\n", label(x.match_id).c_str(), u(x.bytes_in));
    help(o, "retcon_match_bytes_out_total", "counter", "Payload bytes sent to the match's connections.");
    for (const auto &x : m.per_match)
        line(o, "retcon_match_bytes_out_total{match=\"%s\"} %llu\n", label(x.match_id).c_str(), u(x.bytes_out));
    return o;
}

} // namespace retcon
