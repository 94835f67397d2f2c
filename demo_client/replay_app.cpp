#include "client_app.hpp"

#include <retcon/snapshot.hpp>
#include <retcon_demo/game.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <thread>

#include "render.hpp"
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

int run_replay(const client_settings &s) {
    auto reader = replay_reader::open(s.replay);
    if (!reader) {
        std::fprintf(stderr, "demo_client: %s\n", reader.message().c_str());
        return 2;
    }
    const replay_reader &r = *reader;
    if (!s.check_hash_log.empty()) return check_log(r, s.check_hash_log);

    world w{make_schema()};
    if (w.schema_hash() != r.schema().hash()) {
        std::fprintf(stderr, "demo_client: %s was recorded by another game build (schema differs)\n", s.replay.c_str());
        return 2;
    }
    game g;
    // The game's own step, exactly as the server and clients run it.
    const step_function step = [&g](world &ww, const frame_inputs &in) { g.step(ww, in); };
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
    if (auto k = r.restore_keyframe(w, r.start_frame()); !k) return 2;
    frame_t frame = r.start_frame();
    std::uint64_t mismatches = 0, verified = 0;
    double speed = s.speed;
    scene drawn;
    bool paused = false;
    double next = static_cast<double>(now_ms());
    const double period = 1000.0 / r.settings().tick_hz;
    auto advance = [&] {
        if (frame >= r.end_frame()) return;
        step(w, r.inputs(frame));
        ++verified;
        if (hash(w) != r.hash(frame)) ++mismatches;
        ++frame;
    };
    auto seek = [&](std::int64_t delta) {
        const auto target = static_cast<frame_t>(std::clamp<std::int64_t>(static_cast<std::int64_t>(frame) + delta,
                                                                          static_cast<std::int64_t>(r.start_frame()),
                                                                          static_cast<std::int64_t>(r.end_frame())));
        auto k = r.restore_keyframe(w, target);
        if (!k) return;
        frame = *k;
        while (frame < target) advance();
    };
    for (;;) {
        bool quit = terminal::interrupted();
        for (key k; (k = term.poll_key()) != key::none;) {
            if (k == key::quit) quit = true;
            if (k == key::pause || k == key::fire) paused = !paused;
            if (k == key::step && paused) advance();
            if (k == key::faster) speed = std::min(speed * 2, 64.0);
            if (k == key::slower) speed = std::max(speed / 2, 0.125);
            if (k == key::seek_fwd) seek(static_cast<std::int64_t>(r.settings().tick_hz) * 10);
            if (k == key::seek_back) seek(-static_cast<std::int64_t>(r.settings().tick_hz) * 10);
        }
        if (quit) break;
        const auto now = static_cast<double>(now_ms());
        if (paused) next = now;
        while (!paused && now >= next && frame < r.end_frame()) {
            advance();
            next += period / speed;
        }
        char status[200];
        std::snprintf(status, sizeof status,
                      "replay %s | frame %llu/%llu | speed x%g%s | verified %llu, mismatches %llu | "
                      "p pause . step +/- speed [ ] seek q quit",
                      s.replay.c_str(), static_cast<unsigned long long>(frame),
                      static_cast<unsigned long long>(r.end_frame()), speed, paused ? " (paused)" : "",
                      static_cast<unsigned long long>(verified), static_cast<unsigned long long>(mismatches));
        int cols = 80, rows = 24;
        term.size(cols, rows);
        capture(w, drawn);
        term.draw(render(drawn, cols, rows, status, -1));
        std::this_thread::sleep_for(std::chrono::milliseconds(15));
    }
    return mismatches == 0 ? 0 : 1;
}

} // namespace retcon::demo
