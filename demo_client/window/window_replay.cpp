// demo_client --window --replay: the replay viewer's loop. The player (replay_player.hpp) plays
// and verifies, the view (replay_view.hpp) draws, the input (replay_input.hpp) applies keys and
// mouse; this file keeps time and saves the last picture when asked (docs/snapshot.md,
// "Watching a replay").
#include <SDL.h>

#include <chrono>
#include <utility>
#include <cstdio>

#include "canvas.hpp"
#include "replay_input.hpp"
#include "replay_player.hpp"
#include "replay_view.hpp"
#include "window_app.hpp"

namespace retcon::demo {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

int run_window_replay(const client_settings &s) {
    // Everything that can refuse the file does so before a window opens: exit 2, as the
    // terminal player does for an unreadable or damaged file.
    auto opened = replay_player::open(s.replay);
    if (!opened) {
        std::fprintf(stderr, "demo_client: replay NOT readable: %s\n", opened.message().c_str());
        return 2;
    }
    replay_player &player = **opened;
    player.set_speed(s.speed);
    if (s.seek >= 0) {
        if (auto r = player.seek(static_cast<frame_t>(s.seek)); !r) {
            std::fprintf(stderr, "demo_client: cannot seek to frame %lld: %s\n", static_cast<long long>(s.seek),
                         r.message().c_str());
            return 2;
        }
    }
    player.set_paused(s.paused);

    std::string error;
    auto c = canvas::open({.title = "retcon replay: " + s.replay}, error);
    if (!c) {
        std::fprintf(stderr, "demo_client: cannot open a window: %s\n", error.c_str());
        return 2;
    }

    const auto started = std::chrono::steady_clock::now();
    auto last = started;
    const double frame_budget = 1.0 / c->refresh_hz();
    // The last two frames' scenes: playing at normal speed or slower, the picture moves between
    // them with the wall clock (scene.hpp, interpolate); paused, seeking, or faster than recorded,
    // it is the current frame itself.
    scene before, after, latest, drawn;
    replay_layout layout;
    replay_input input;
    bool running = true;
    auto draw = [&] {
        layout = layout_replay(static_cast<float>(c->width()), static_cast<float>(c->height()), c->line_height(),
                               c->pixel_scale());
        capture(player.current(), latest);
        if (latest.frame != after.frame || after.width == 0) {
            std::swap(before, after);
            std::swap(after, latest);
        }
        const bool between = !player.paused() && player.speed() <= 1 && !input.dragging() && before.width != 0 &&
                             before.frame + 1 == after.frame;
        if (between) interpolate(before, after, player.between(), drawn);
        draw_replay(*c, between ? drawn : after, player.status(), player.keyframes(), layout);
    };
    while (running) {
        const auto frame_began = std::chrono::steady_clock::now();
        for (SDL_Event e; SDL_PollEvent(&e);) running = input.handle(e, player, layout, c->pixel_scale()) && running;
        if (s.duration_s > 0 && seconds_since(started) >= s.duration_s) running = false;
        const auto now = std::chrono::steady_clock::now();
        // Playback holds still while the handle is dragged: the frame under the mouse is shown.
        if (!input.dragging()) player.play(std::chrono::duration<double>(now - last).count());
        last = now;
        draw();
        c->present();
        // Xvfb and some drivers do not wait for the refresh on present: pace the loop ourselves.
        if (const double spent = seconds_since(frame_began); spent < frame_budget)
            SDL_Delay(static_cast<Uint32>((frame_budget - spent) * 1000));
    }

    int status = player.status().mismatched == 0 ? 0 : 1;
    if (!s.screenshot.empty()) {
        draw(); // the picture as it was last shown, read back before it is presented
        if (!c->read_pixels().save_bmp(s.screenshot)) {
            std::fprintf(stderr, "demo_client: cannot write the screenshot %s\n", s.screenshot.c_str());
            status = 2;
        }
    }
    const replay_status st = player.status();
    const replay_status_text words = describe(st);
    std::printf("replay %s: %s, %s%s%s\n", s.replay.c_str(), words.position.c_str(), words.verdict.c_str(),
                words.incomplete.empty() ? "" : ", ", words.incomplete.c_str());
    return status;
}

} // namespace retcon::demo
