#include "client_app.hpp"

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "live_match.hpp"
#include "render.hpp"
#include "scene.hpp"
#include "terminal.hpp"

namespace retcon::demo {

namespace {

/// Keys arrive as presses and auto-repeats, never as releases: a held key is one seen recently.
struct held_keys {
    std::uint64_t left = 0, right = 0, up = 0;
    bool fire = false;
    bool quit = false;
    void feed(key k, std::uint64_t now) {
        switch (k) {
        case key::left: left = now; break;
        case key::right: right = now; break;
        case key::up: up = now; break;
        case key::fire: fire = true; break;
        case key::quit: quit = true; break;
        default: break;
        }
    }
    player_input sample(std::uint64_t now) {
        constexpr std::uint64_t hold = 150;
        player_input in{};
        if (now - left < hold) in.turn = 1;
        if (now - right < hold) in.turn = 2;
        in.thrust = now - up < hold ? 1 : 0;
        in.fire = fire ? 1 : 0;
        fire = false;
        return in;
    }
};

} // namespace

int run_client(const client_settings &s) {
    live_match match(s, s.headless);
    if (!match.open()) return 2;
    std::unique_ptr<terminal> term;
    if (!s.headless) {
        term = std::make_unique<terminal>();
        if (!term->ok()) {
            std::fprintf(stderr, "demo_client: not a terminal; use --headless\n");
            return 2;
        }
    }
    held_keys keys;
    std::uint64_t next_draw = match.start_ms();
    scene drawn; // what the terminal shows, copied from the world (drawing never reads it)
    while (!match.done()) {
        const std::uint64_t now = now_ms();
        match.poll(now);
        if (term)
            for (key k; (k = term->poll_key()) != key::none;) keys.feed(k, now);
        if (keys.quit || terminal::interrupted()) {
            match.leave();
            break;
        }
        while (match.should_tick(now)) match.tick(keys.sample(now));
        match.after_ticks(now);
        const client_session &client = match.session();
        if (term && now >= next_draw && client.state() == client_state::running) {
            next_draw = now + 33;
            const auto &st = client.stats();
            char status[256];
            std::snprintf(status, sizeof status,
                          "retcon | %s slot %d | frame %u | rtt %.0f ms | delay %u | ahead %.1f | rollbacks/s %.0f | "
                          "resim/s %.0f | "
                          "%.1f/%.1f kbps | desyncs %llu %s",
                          s.name.c_str(), client.slot(), client.current_frame(), st.rtt_ms, st.input_delay,
                          st.frames_ahead, st.rollbacks_per_s, st.resimulated_per_s, st.bytes_out_per_s * 8 / 1000.0,
                          st.bytes_in_per_s * 8 / 1000.0, static_cast<unsigned long long>(match.desyncs()),
                          match.last_note().c_str());
            int cols = 80, rows = 24;
            term->size(cols, rows);
            capture(match.game_world(), drawn);
            term->draw(render(drawn, cols, rows, status, client.slot()));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    term.reset(); // restore the terminal before printing the summary
    return match.finish();
}

} // namespace retcon::demo
