#include "live_match.hpp"

#include <retcon/host/join_token.hpp>

#include <chrono>
#include <cstdio>

#include "token_file.hpp"

namespace retcon::demo {

namespace {
/// --trace keeps the newest 524,288 records (20 MiB): about a quarter of an hour of a 60 Hz match.
constexpr std::uint32_t trace_records = 1u << 19;
} // namespace

std::uint64_t now_ms() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count());
}

// Only what is compiled in matters for the config (input layout, content version); the player
// slots, tick rate and input delay come from the server's welcome.
live_match::live_match(const client_settings &settings, bool log)
    : s_(settings), log_(log), world_(make_schema()), config_(make_client_config()), ai_(settings.seed) {
    init_world(world_);
    game_->debug_fault(s_.debug_desync); // the desync drill lives in this process's step only
}

live_match::~live_match() {
    session_.reset(); // before its transport
}

bool live_match::open() {
    // The token file is read before anything connects: a bad one stops here, naming the file.
    keep_token_ = !s_.token_file.empty() && !s_.spectate; // a spectator has no slot to keep
    if (keep_token_) {
        auto t = read_token_file(s_.token_file);
        if (!t) {
            std::fprintf(stderr, "demo_client: %s\n", t.message().c_str());
            return false;
        }
        stored_ = *t;
    }
    if (!s_.join_token.empty()) { // from the studio's lobby (docs/join-tokens.md)
        auto t = token_from_text(s_.join_token);
        if (!t) {
            std::fprintf(stderr, "demo_client: --token: %s\n", t.message().c_str());
            return false;
        }
        join_token_ = std::move(*t);
    }
    if (!s_.hash_log.empty()) hash_log_.open(s_.hash_log);
    if (!open_session()) return false;
    start_ = now_ms();
    return true;
}

bool live_match::open_session() {
    session_.reset(); // before its transport
    auto made = make_enet_client(s_.host, s_.port);
    if (!made) {
        std::fprintf(stderr, "demo_client: %s\n", made.message().c_str());
        return false;
    }
    net_ = std::move(*made);
    client_options opt;
    opt.name = s_.name;
    opt.spectator = s_.spectate;
    opt.connect_timeout_ms = s_.connect_timeout_ms;
    opt.reconnect.attempts = s_.reconnect_attempts; // the rest of the policy: its defaults
    opt.reconnect_token = stored_;                  // empty: a new player
    opt.join_token = join_token_;                   // a reconnection presents it again, with the reconnect token
    if (!s_.trace.empty()) opt.trace.records = trace_records; // the newest records, written by finish()
    opt.flight_recorder_dir = s_.flight_recorder;             // empty: off
    session_ = std::make_unique<client_session>(config_, world_, game::structured(game_), *net_, opt);
    if (hash_log_.is_open())
        session_->on_confirmed_hash([this](frame_t f, std::uint64_t h) { hash_log_ << f << ' ' << h << '\n'; });
    return true;
}

void live_match::poll(std::uint64_t now) {
    client_session &client = *session_;
    client.poll(now);
    if (!corrupted_ && s_.debug_corrupt >= 0 && client.current_frame() >= static_cast<frame_t>(s_.debug_corrupt) &&
        client.state() == client_state::running) {
        corrupted_ = true;
        client.debug_corrupt([](world &ww) {
            ww.view<position, const asteroid>().each([](position &p, const asteroid &) { p.x += fixed::from_int(1); });
        });
        last_note_ = "debug: corrupted asteroid positions";
    }
}

bool live_match::tick(const player_input &local) {
    const player_input in = s_.bot ? ai_.decide(world_, session_->slot()) : local;
    return session_->tick(in);
}

void live_match::leave() {
    session_->leave();
    exit_code_ = 0;
    reason_ = "left the match";
}

void live_match::after_ticks(std::uint64_t now, const std::function<void(const session_event &)> &on_event) {
    client_session &client = *session_;
    bool join_as_new = false;
    for (session_event ev; !join_as_new && client.next_event(ev);) {
        if (on_event) on_event(ev);
        if (ev.kind == session_event_kind::desync_detected) {
            ++desyncs_;
            if (!ev.stage.empty() && verdict_.empty()) // the server's bisection (docs/net.md, "Desync forensics")
                verdict_ = "frame " + std::to_string(ev.frame) + ", " +
                           (ev.stage_index > 0 ? "system \"" + ev.stage + "\"" : "\"" + ev.stage + "\"");
        }
        last_note_ = std::string(to_string(ev.kind)) + (ev.text.empty() ? "" : ": " + ev.text);
        if (log_) std::printf("[frame %u] %s\n", ev.frame, last_note_.c_str());
        if (ev.kind == session_event_kind::match_ended) {
            exit_code_ = 0;
            reason_ = "the server ended the match";
        } else if (ev.kind == session_event_kind::rejected && !stored_.empty() &&
                   ev.reject == wire::reject_reason::token) {
            // A stale token file (the server restarted, or gave the slot to someone else):
            // the player joins as a new one rather than stopping until the file is deleted.
            last_note_ = "the server refused the reconnect token in " + s_.token_file + " (" + ev.text +
                         "); joining as a new player";
            std::fprintf(stderr, "demo_client: %s\n", last_note_.c_str());
            if (log_) std::printf("demo_client %s: %s\n", s_.name.c_str(), last_note_.c_str());
            stored_ = {};
            join_as_new = true;
        } else if (ev.kind == session_event_kind::rejected || ev.kind == session_event_kind::disconnected) {
            exit_code_ = 3;
            reason_ = last_note_;
        }
    }
    if (join_as_new) {
        if (!open_session()) {
            reopen_failed_ = true;
            exit_code_ = 2;
        }
        return;
    }
    const auto st_now = client.state();
    if (!announced_ && (st_now == client_state::loading || st_now == client_state::running)) {
        announced_ = true; // the welcome arrived: the slot is known
        if (log_) {
            if (client.slot() >= 0) std::printf("demo_client %s: playing slot %d\n", s_.name.c_str(), client.slot());
            else
                std::printf("demo_client %s: watching as a spectator\n", s_.name.c_str());
        }
    }
    // Keep the token the server issued (written once per new token, after the line above, so a
    // script that sees the file also sees the slot).
    if (keep_token_) {
        const auto issued = client.reconnect_token();
        if (!issued.empty() && issued != stored_) {
            stored_ = issued;
            if (auto kept = write_token_file(s_.token_file, issued); !kept) {
                last_note_ = "could not keep the reconnect token: " + kept.message();
                if (log_) std::printf("%s\n", last_note_.c_str());
            }
        }
    }
    if (log_) std::fflush(stdout); // a crashed client's log still shows how far it got
    if (s_.duration_s > 0 && static_cast<double>(now - start_) >= s_.duration_s * 1000.0) {
        client.leave();
        exit_code_ = 0;
        reason_ = "duration reached";
    }
}

int live_match::finish() {
    if (reopen_failed_) return exit_code_; // open_session said why
    const client_session &client = *session_;
    const auto &st = client.stats();
    const double secs = static_cast<double>(now_ms() - start_) / 1000.0;
    std::printf("demo_client %s: %s\n", s_.name.c_str(), reason_.c_str());
    if (s_.spectate) std::printf("  slot: spectator\n");
    else if (client.slot() >= 0)
        std::printf("  slot: %d\n", client.slot());
    else
        std::printf("  slot: none (never joined)\n");
    std::printf("  frames: %u\n", client.current_frame());
    std::printf("  rollbacks: %llu\n", static_cast<unsigned long long>(st.rollbacks));
    std::printf("  frames re-simulated: %llu\n", static_cast<unsigned long long>(st.resimulated));
    std::printf("  stalls: %llu\n", static_cast<unsigned long long>(st.stall_frames));
    std::printf("  rtt: %.1f ms, bandwidth: %.0f B/s up, %.0f B/s down\n", st.rtt_ms, st.bytes_out_per_s,
                st.bytes_in_per_s);
    std::printf("  time: %.1f s\n", secs);
    if (!s_.trace.empty()) {
        if (auto written = client.write_trace(s_.trace); written)
            std::printf("  trace: %s (%zu records)\n", s_.trace.c_str(), session_->trace()->size());
        else
            std::fprintf(stderr, "demo_client: could not write the trace: %s\n", written.message().c_str());
    }
    if (trace_writer *flight = session_->flight_recorder()) {
        flight->flush(); // the dumps queued are on disk before the summary says so
        std::printf("  flight recorder: %llu dumps in %s (%llu not written)\n",
                    static_cast<unsigned long long>(flight->written()), s_.flight_recorder.c_str(),
                    static_cast<unsigned long long>(flight->failed()) +
                        static_cast<unsigned long long>(flight->dropped()));
    }
    std::printf("desyncs: %llu\n", static_cast<unsigned long long>(desyncs_));
    if (!verdict_.empty()) std::printf("desync verdict: %s\n", verdict_.c_str());
    return exit_code_;
}

} // namespace retcon::demo
