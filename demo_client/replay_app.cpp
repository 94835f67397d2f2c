#include "client_app.hpp"

#include <retcon/net/trace.hpp>
#include <retcon/snapshot.hpp>
#include <retcon_demo/game.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <thread>

#include "render.hpp"
#include "replay_player.hpp"
#include "scene.hpp"
#include "terminal.hpp"

namespace retcon::demo {

namespace {
std::uint64_t now_ms() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count());
}

int check_log(const replay_reader &r, const std::string &path) {
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "demo_client: cannot read %s\n", path.c_str());
        return 2;
    }
    std::uint64_t frame = 0, h = 0, compared = 0, bad = 0;
    while (in >> frame >> h) {
        if (frame < r.start_frame() || frame >= r.end_frame()) continue;
        ++compared;
        if (r.hash(static_cast<frame_t>(frame)) != h) {
            if (bad++ == 0) std::printf("  first mismatch at frame %llu\n", static_cast<unsigned long long>(frame));
        }
    }
    std::printf("hash log %s: %llu frames compared with the replay, %llu mismatched\n", path.c_str(),
                static_cast<unsigned long long>(compared), static_cast<unsigned long long>(bad));
    return compared > 0 && bad == 0 ? 0 : 1;
}
} // namespace

namespace {
/// --replay FILE --headless --trace OUT: re-simulates the replay as verify does, with a "frame"
/// slice per frame stepped (docs/net.md, "Reading a trace"), and writes the trace.
int write_replay_trace(const client_settings &s, const replay_reader &r, world &w, game &g) {
    const std::uint64_t frames = r.end_frame() - r.start_frame() + 1;
    trace_recorder trace{{.records = static_cast<std::uint32_t>(std::min<std::uint64_t>(frames + 16, 1u << 24)),
                          .process_name = "retcon replay " + s.replay}};
    const trace_name_id frame = trace.intern("frame", "frame");
    const step_function traced = [&](world &ww, const frame_inputs &in) {
        const std::uint64_t start = trace.now();
        g.step(ww, in);
        trace.complete(frame, start, trace.now(), trace_track::tick, in.frame());
    };
    auto rep = verify(r, w, traced);
    if (!rep) {
        std::fprintf(stderr, "demo_client: replay NOT verified: %s\n", rep.message().c_str());
        return 2;
    }
    if (rep->first_mismatch)
        trace.instant(trace.intern("hash mismatch"), "frame " + std::to_string(*rep->first_mismatch));
    if (auto written = trace.write_json(s.trace); !written) {
        std::fprintf(stderr, "demo_client: could not write the trace: %s\n", written.message().c_str());
        return 2;
    }
    std::printf("replay %s: %llu frames re-simulated; trace: %s (%zu records)\n", s.replay.c_str(),
                static_cast<unsigned long long>(rep->frames_checked), s.trace.c_str(), trace.size());
    return rep->ok() ? 0 : 1;
}
} // namespace

int run_replay(const client_settings &s) {
    auto reader = replay_reader::open(s.replay);
    if (!reader) {
        std::fprintf(stderr, "demo_client: %s\n", reader.message().c_str());
        return 2;
    }
    const replay_reader &r = *reader;
    if (!s.check_hash_log.empty()) return check_log(r, s.check_hash_log);

    world w{make_schema()};
    if (auto sem = check_simulation(r.schema()); !sem) { // before the hash: it says why they differ
        std::fprintf(stderr, "demo_client: replay NOT verified: %s: %s\n", s.replay.c_str(), sem.message().c_str());
        return 2;
    }
    if (w.schema_hash() != r.schema().hash()) {
        std::fprintf(stderr, "demo_client: %s was recorded by another game build (schema differs)\n", s.replay.c_str());
        return 2;
    }
    game g;
    // The game's own step, exactly as the server and clients run it.
    const step_function step = [&g](world &ww, const frame_inputs &in) { g.step(ww, in); };
    if (s.headless && !s.trace.empty()) return write_replay_trace(s, r, w, g);
    if (s.headless) {
        // Exit status: 0 verified (a complete file, every frame re-simulated to its recorded
        // hash, every keyframe checked); 1 not verified (a mismatch, or no frame to verify);
        // 2 unreadable or damaged (retcon::verify checks every keyframe, as `retcon check`
        // does); 3 incomplete (a file cut short: its readable part matched, the rest is unknown).
        auto rep = verify(r, w, step);
        if (!rep) {
            std::fprintf(stderr, "demo_client: replay NOT verified: %s\n", rep.message().c_str());
            return 2;
        }
        const auto &m = w.resource<match_state>();
        std::printf("replay %s: %llu frames re-simulated, %zu keyframes checked%s\n", s.replay.c_str(),
                    static_cast<unsigned long long>(rep->frames_checked), r.keyframes().size(),
                    r.complete() ? "" : " (file incomplete)");
        if (rep->ok() && rep->frames_checked == 0) {
            std::printf("replay NOT verified: it holds no frames, nothing was re-simulated\n");
            return 1;
        }
        if (rep->ok() && !r.complete()) {
            std::printf("replay NOT verified as a whole: frames %llu..%llu match, but the file is incomplete (%s)\n",
                        static_cast<unsigned long long>(r.start_frame()),
                        static_cast<unsigned long long>(r.end_frame()), r.truncation_note().c_str());
            return 3;
        }
        if (rep->ok()) {
            std::printf("replay verified: every frame's hash matches (%llu asteroids destroyed)\n",
                        static_cast<unsigned long long>(m.asteroids_destroyed));
            return 0;
        }
        std::printf("replay MISMATCH at frame %llu (expected %016llx, got %016llx)",
                    static_cast<unsigned long long>(*rep->first_mismatch),
                    static_cast<unsigned long long>(rep->expected), static_cast<unsigned long long>(rep->actual));
        for (const auto &d : rep->diverging) std::printf(" %s", d.c_str());
        std::printf("\n");
        return 1;
    }

    terminal term;
    if (!term.ok()) {
        std::fprintf(stderr, "demo_client: not a terminal; use --headless to verify a replay\n");
        return 2;
    }
    auto opened = replay_player::open(std::move(*reader));
    if (!opened) {
        std::fprintf(stderr, "demo_client: %s\n", opened.message().c_str());
        return 2;
    }
    replay_player &player = **opened;
    player.set_speed(s.speed);
    const auto ten_seconds = static_cast<std::int64_t>(player.tick_hz()) * 10;
    scene drawn;
    auto last = now_ms();
    for (;;) {
        bool quit = terminal::interrupted();
        for (key k; (k = term.poll_key()) != key::none;) {
            if (k == key::quit) quit = true;
            if (k == key::pause || k == key::fire) player.toggle_paused();
            if (k == key::step) (void)player.step();
            if (k == key::faster) player.faster();
            if (k == key::slower) player.slower();
            if (k == key::seek_fwd) (void)player.seek_by(ten_seconds);
            if (k == key::seek_back) (void)player.seek_by(-ten_seconds);
        }
        if (quit) break;
        const auto now = now_ms();
        player.play(static_cast<double>(now - last) / 1000.0);
        last = now;
        const replay_status st = player.status();
        char status[200];
        std::snprintf(status, sizeof status,
                      "replay %s | frame %llu/%llu | speed x%g%s | verified %llu, mismatches %llu | "
                      "p pause . step +/- speed [ ] seek q quit",
                      s.replay.c_str(), static_cast<unsigned long long>(st.frame),
                      static_cast<unsigned long long>(st.end), st.speed, st.paused ? " (paused)" : "",
                      static_cast<unsigned long long>(st.verified), static_cast<unsigned long long>(st.mismatched));
        int cols = 80, rows = 24;
        term.size(cols, rows);
        capture(player.current(), drawn);
        term.draw(render(drawn, cols, rows, status, -1));
        std::this_thread::sleep_for(std::chrono::milliseconds(15));
    }
    return player.status().mismatched == 0 ? 0 : 1;
}

} // namespace retcon::demo
