// demo_client --window: the live match (live_match.hpp) drawn in an SDL2 window, with keyboard and
// game-controller input, a HUD, the predicted-ship highlight and the net graph.
#include <SDL.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "canvas.hpp"
#include "live_match.hpp"
#include "net_graph.hpp"
#include "scene.hpp"
#include "scene_painter.hpp"
#include "window_app.hpp"
#include "window_input.hpp"

namespace retcon::demo {

namespace {

std::uint64_t now_us() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count());
}

/// The window's own state: what is shown and the controller in use.
struct view_state {
    bool show_graph = false;
    bool show_predicted = false;
    bool quit = false;
    SDL_GameController *controller = nullptr;
};

/// Handles the window's events: closing it, the toggles and quit keys, controllers coming and going.
void handle_events(view_state &v) {
    for (SDL_Event ev; SDL_PollEvent(&ev) != 0;) {
        switch (ev.type) {
        case SDL_QUIT: v.quit = true; break;
        case SDL_KEYDOWN:
            if (ev.key.repeat != 0) break;
            switch (ev.key.keysym.sym) {
            case SDLK_ESCAPE:
            case SDLK_q: v.quit = true; break;
            case SDLK_g: v.show_graph = !v.show_graph; break;
            case SDLK_p: v.show_predicted = !v.show_predicted; break;
            default: break;
            }
            break;
        case SDL_CONTROLLERDEVICEADDED:
            if (v.controller == nullptr) v.controller = SDL_GameControllerOpen(ev.cdevice.which); // the first one plays
            break;
        case SDL_CONTROLLERDEVICEREMOVED:
            if (v.controller != nullptr &&
                SDL_JoystickInstanceID(SDL_GameControllerGetJoystick(v.controller)) == ev.cdevice.which) {
                SDL_GameControllerClose(v.controller);
                v.controller = nullptr;
            }
            break;
        default: break;
        }
    }
}

/// The HUD: who this is, the match's figures, the scores of the slots present, the last event.
void draw_hud(canvas &c, const scene &sc, const client_settings &s, const live_match &match, const view_state &v,
              float x, float y) {
    const client_session &client = match.session();
    const auto &st = client.stats();
    const float lh = c.line_height();
    char line[256];
    if (s.spectate) std::snprintf(line, sizeof line, "%s (spectator)", s.name.c_str());
    else
        std::snprintf(line, sizeof line, "%s  slot %d", s.name.c_str(), client.slot());
    float at = x + c.text(x, y, line, client.slot() >= 0 ? palette::player(client.slot()) : palette::text);
    std::snprintf(line, sizeof line, "   frame %u  rtt %.0f ms  delay %u  desyncs %llu", client.current_frame(),
                  st.rtt_ms, st.input_delay, static_cast<unsigned long long>(match.desyncs()));
    c.text(at, y, line, palette::text);
    y += lh;
    at = x;
    for (std::size_t p = 0; p < sc.players.size(); ++p) {
        if (!sc.players[p].present) continue;
        std::snprintf(line, sizeof line, "P%zu %u   ", p, sc.players[p].score);
        at += c.text(at, y, line, palette::player(static_cast<int>(p)));
    }
    y += lh;
    const auto st_now = client.state();
    const char *state =
        st_now == client_state::connecting || st_now == client_state::loading ? "waiting for the server...  " : "";
    c.text(x, y, std::string(state) + match.last_note(), palette::dim_text);
    std::snprintf(line, sizeof line, "arrows/WASD fly  Space fire  G net graph  P predicted%s  Esc quit",
                  v.show_predicted ? " (white)" : "");
    c.text(x, static_cast<float>(c.height()) - lh - 4, line, palette::dim_text);
}

} // namespace

int run_window_client(const client_settings &s) {
    canvas_options co;
    co.title = "retcon demo: " + s.name;
    // vsync off: with it, present() would block until the display's refresh and hold back the
    // ticks of this same loop (the tick must never wait on the display). Presents are paced by
    // the clock below instead, at most once per refresh.
    co.vsync = false;
    std::string error;
    auto c = canvas::open(co, error);
    if (!c) {
        std::fprintf(stderr, "demo_client: no window: %s\n", error.c_str());
        return 2;
    }
    live_match match(s, true);
    if (!match.open()) return 2;

    view_state v;
    v.show_graph = s.net_graph;
    v.show_predicted = s.show_predicted;
    net_graph graph;
    std::vector<frame_telemetry> telemetry;
    // Two scenes copied from the world after the ticks that advanced it, and the one drawn
    // between them (docs/net.md, "Drawing between frames"): drawing never reads the world.
    scene previous, current, shown;
    bool have_scene = false;
    std::uint64_t last_tick_us = now_us();
    const std::uint64_t present_period_us = 1'000'000u / static_cast<std::uint64_t>(std::max(1, c->refresh_hz()));
    std::uint64_t next_present_us = 0;

    const auto draw = [&] {
        client_session &client = match.session();
        const float w = static_cast<float>(c->width()), h = static_cast<float>(c->height());
        c->clear(palette::background);
        float ax = 0, ay = 0, aw = w, ah = h; // the arena's area; the net graph takes a third
        float gx = 0, gy = 0, gw = 0, gh = 0;
        if (v.show_graph) {
            if (w >= h) {
                gw = w / 3, gh = h, gx = w - gw;
                aw = w - gw;
            } else {
                gw = w, gh = h / 3, gy = h - gh;
                ah = h - gh;
            }
        }
        if (have_scene) {
            const std::uint16_t hz = client.tick_hz();
            const float t =
                hz == 0 ? 1.0f : static_cast<float>(static_cast<double>(now_us() - last_tick_us) * hz / 1'000'000.0);
            interpolate(previous, current, t, shown);
            const float top = c->line_height() * 3 + 8; // room for the HUD
            const arena_view view = fit(shown.width, shown.height, ax + 4, ay + top, aw - 8, ah - top - 8);
            paint(*c, shown, view, {client.slot(), v.show_predicted});
        }
        draw_hud(*c, shown, s, match, v, ax + 6, ay + 4);
        if (v.show_graph) {
            if (telemetry.size() != client.telemetry_capacity()) telemetry.resize(client.telemetry_capacity());
            const std::size_t n = client.telemetry(telemetry);
            graph.draw(*c, gx, gy, gw, gh, std::span<const frame_telemetry>(telemetry.data(), n), client.tick_hz());
        }
    };

    while (!match.done()) {
        const std::uint64_t now = now_ms();
        match.poll(now);
        handle_events(v);
        if (v.quit) {
            match.leave();
            break;
        }
        const player_input local = map_input(read_input(v.controller));
        while (match.should_tick(now)) {
            client_session &client = match.session();
            const frame_t before = client.current_frame();
            match.tick(local);
            if (client.current_frame() == before) continue; // stalled: nothing new to draw
            last_tick_us = now_us();
            std::swap(previous, current);
            capture(match.game_world(), current);
            // The ships whose player's input for the frame just simulated is still a guess.
            const frame_t drawn = client.current_frame() - 1;
            for (scene_ship &ship : current.ships)
                ship.predicted = ship.player < client.players() && client.is_predicted(drawn, ship.player);
            if (!have_scene) previous = current;
            have_scene = true;
        }
        match.after_ticks(now, [&graph](const session_event &ev) { graph.note(ev); });
        const std::uint64_t t_us = now_us();
        if (t_us >= next_present_us) {
            // At most one picture per refresh; after a slow one, the next waits a whole period.
            next_present_us = std::max(next_present_us + present_period_us, t_us + present_period_us / 2);
            draw();
            c->present();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    bool saved = true;
    if (!s.screenshot.empty()) {
        draw(); // the last picture, read back before it is shown
        const picture shot = c->read_pixels();
        c->present();
        saved = shot.save_bmp(s.screenshot);
        if (!saved) std::fprintf(stderr, "demo_client: could not write the screenshot %s\n", s.screenshot.c_str());
    }
    if (v.controller != nullptr) SDL_GameControllerClose(v.controller);
    c.reset();
    const int code = match.finish();
    return code == 0 && !saved ? 2 : code;
}

} // namespace retcon::demo
