#include <retcon/host/match_result.hpp>

#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace retcon {

namespace {

/// 64-bit hashes as 16 hex digits: a JSON number loses bits above 2^53 in most readers.
std::string hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
    return buf;
}

} // namespace

std::string to_json(const match_result &r) {
    // ordered_json: the keys stay in the documented order (docs/hosting.md, "Match results").
    nlohmann::ordered_json slots = nlohmann::ordered_json::array();
    for (const auto &s : r.slots)
        slots.push_back({{"slot", s.slot},
                         {"player_id", s.player_id},
                         {"name", s.name},
                         {"score", s.score},
                         {"outcome", s.outcome},
                         {"replaced_inputs", s.replaced_inputs},
                         {"present_at_end", s.present_at_end}});
    const nlohmann::ordered_json j = {
        {"event", "match_result"},
        {"match_id", r.match_id},
        {"end_reason", r.end_reason},
        {"final_frame", r.final_frame},
        {"final_hash", hex(r.final_hash)},
        {"duration_s", std::round(r.duration_s * 1000.0) / 1000.0},
        {"joins", r.joins},
        {"slots", std::move(slots)},
        {"replay_path", r.replay_path},
        {"replay_bytes", r.replay_bytes},
        {"replay_hash", hex(r.replay_hash)},
        {"recording_failed", r.recording_failed},
        {"recording_error", r.recording_error},
        {"desyncs_verified", r.desyncs_verified},
        {"desyncs_unverified", r.desyncs_unverified},
        {"replaced_inputs", r.replaced_inputs},
        {"bytes_in", r.bytes_in},
        {"bytes_out", r.bytes_out},
    };
    // A player's name is whatever bytes its hello carried: bytes that are not UTF-8 become
    // U+FFFD, so the line stays JSON a ranking service can read.
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace retcon
