#include <retcon/host/match_result.hpp>

#include <cinttypes>
#include <cstdio>

namespace retcon {

namespace {

void text(std::string &out, const std::string &s) {
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += ch;
        }
    }
    out += '"';
}

void key(std::string &out, const char *name) {
    if (out.back() != '{') out += ',';
    out += '"';
    out += name;
    out += "\":";
}

void hex(std::string &out, std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "\"%016" PRIx64 "\"", v);
    out += buf;
}

} // namespace

std::string to_json(const match_result &r) {
    std::string o = "{";
    key(o, "event");
    text(o, "match_result");
    key(o, "match_id");
    text(o, r.match_id);
    key(o, "end_reason");
    text(o, r.end_reason);
    key(o, "final_frame");
    o += std::to_string(r.final_frame);
    key(o, "final_hash");
    hex(o, r.final_hash);
    key(o, "duration_s");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", r.duration_s);
    o += buf;
    key(o, "joins");
    o += std::to_string(r.joins);
    key(o, "slots");
    o += '[';
    for (const auto &s : r.slots) {
        if (o.back() != '[') o += ',';
        o += '{';
        key(o, "slot");
        o += std::to_string(s.slot);
        key(o, "player_id");
        o += std::to_string(s.player_id);
        key(o, "name");
        text(o, s.name);
        key(o, "score");
        o += std::to_string(s.score);
        key(o, "outcome");
        text(o, s.outcome);
        key(o, "replaced_inputs");
        o += std::to_string(s.replaced_inputs);
        key(o, "present_at_end");
        o += s.present_at_end ? "true" : "false";
        o += '}';
    }
    o += ']';
    key(o, "replay_path");
    text(o, r.replay_path);
    key(o, "replay_bytes");
    o += std::to_string(r.replay_bytes);
    key(o, "replay_hash");
    hex(o, r.replay_hash);
    key(o, "desyncs_verified");
    o += std::to_string(r.desyncs_verified);
    key(o, "desyncs_unverified");
    o += std::to_string(r.desyncs_unverified);
    key(o, "replaced_inputs");
    o += std::to_string(r.replaced_inputs);
    key(o, "bytes_in");
    o += std::to_string(r.bytes_in);
    key(o, "bytes_out");
    o += std::to_string(r.bytes_out);
    o += '}';
    return o;
}

} // namespace retcon
