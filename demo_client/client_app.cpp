#include "client_app.hpp"

#include <retcon/host/join_token.hpp>
#include <retcon/net.hpp>
#include <retcon_demo/game.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include "render.hpp"
#include "scene.hpp"
#include "terminal.hpp"
#include "token_file.hpp"

namespace retcon::demo {

namespace {

std::uint64_t now_ms() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count());
}

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
    world w{make_schema()};
    init_world(w);
    game g;
    // Only what is compiled in matters here (input layout, content version); the player slots,
    // tick rate and input delay come from the server's welcome.
    const client_config config = make_client_config();
    // The token file is read before anything connects: a bad one stops here, naming the file.
    const bool keep_token = !s.token_file.empty() && !s.spectate; // a spectator has no slot to keep
    reconnect_token stored;                                       // what the token file holds (empty: none yet)
    if (keep_token) {
        auto t = read_token_file(s.token_file);
        if (!t) {
            std::fprintf(stderr, "demo_client: %s\n", t.message().c_str());
            return 2;
        }
        stored = *t;
    }
    std::vector<std::byte> join_token; // from the studio's lobby (docs/join-tokens.md)
    if (!s.join_token.empty()) {
        auto t = token_from_text(s.join_token);
        if (!t) {
            std::fprintf(stderr, "demo_client: --token: %s\n", t.message().c_str());
            return 2;
        }
        join_token = std::move(*t);
    }
    std::ofstream hash_log;
    if (!s.hash_log.empty()) hash_log.open(s.hash_log);
    // A connection and its session; a second one when the server refuses the stored reconnect
    // token and the client joins as a new player instead.
    std::unique_ptr<transport> net;
    std::unique_ptr<client_session> session;
    const auto open_session = [&](const reconnect_token &back) {
        session.reset(); // before its transport
        auto made = make_enet_client(s.host, s.port);
        if (!made) {
            std::fprintf(stderr, "demo_client: %s\n", made.message().c_str());
            return false;
        }
        net = std::move(*made);
        client_options opt;
        opt.name = s.name;
        opt.spectator = s.spectate;
        opt.connect_timeout_ms = s.connect_timeout_ms;
        opt.reconnect.attempts = s.reconnect_attempts; // the rest of the policy: its defaults
        opt.reconnect_token = back;                    // empty: a new player
        opt.join_token = join_token;                   // a reconnection presents it again, with the reconnect token
        session = std::make_unique<client_session>(
            config, w, [&g](world &ww, const frame_inputs &in) { g.step(ww, in); }, *net, opt);
        if (hash_log.is_open())
            session->on_confirmed_hash([&hash_log](frame_t f, std::uint64_t h) { hash_log << f << ' ' << h << '\n'; });
        return true;
    };
    if (!open_session(stored)) return 2;
    std::unique_ptr<terminal> term;
    if (!s.headless) {
        term = std::make_unique<terminal>();
        if (!term->ok()) {
            std::fprintf(stderr, "demo_client: not a terminal; use --headless\n");
            return 2;
        }
    }
    bot ai{s.seed};
    held_keys keys;
    std::string last_note;
    std::uint64_t desyncs = 0;
    int exit_code = -1;
    std::string reason;
    const std::uint64_t start = now_ms();
    std::uint64_t next_draw = start;
    scene drawn; // what the terminal shows, copied from the world (drawing never reads it)
    bool corrupted = false;
    bool announced = false; // "playing slot N" printed (headless)
    while (exit_code < 0) {
        client_session &client = *session;
        const std::uint64_t now = now_ms();
        client.poll(now);
        if (term)
            for (key k; (k = term->poll_key()) != key::none;) keys.feed(k, now);
        if (keys.quit || terminal::interrupted()) {
            client.leave();
            exit_code = 0;
            reason = "left the match";
            break;
        }
        if (!corrupted && s.debug_desync >= 0 && client.current_frame() >= static_cast<frame_t>(s.debug_desync) &&
            client.state() == client_state::running) {
            corrupted = true;
            client.debug_corrupt([](world &ww) {
                ww.view<position, const asteroid>().each(
                    [](position &p, const asteroid &) { p.x += fixed::from_int(1); });
            });
            last_note = "debug: corrupted asteroid positions";
        }
        while (client.should_tick(now)) {
            const player_input in = s.bot ? ai.decide(w, client.slot()) : keys.sample(now);
            client.tick(in);
        }
        bool join_as_new = false;
        for (session_event ev; !join_as_new && client.next_event(ev);) {
            if (ev.kind == session_event_kind::desync_detected) ++desyncs;
            last_note = std::string(to_string(ev.kind)) + (ev.text.empty() ? "" : ": " + ev.text);
            if (s.headless) std::printf("[frame %u] %s\n", ev.frame, last_note.c_str());
            if (ev.kind == session_event_kind::match_ended) {
                exit_code = 0;
                reason = "the server ended the match";
            } else if (ev.kind == session_event_kind::rejected && !stored.empty() &&
                       ev.reject == wire::reject_reason::token) {
                // A stale token file (the server restarted, or gave the slot to someone else):
                // the player joins as a new one rather than stopping until the file is deleted.
                last_note = "the server refused the reconnect token in " + s.token_file + " (" + ev.text +
                            "); joining as a new player";
                std::fprintf(stderr, "demo_client: %s\n", last_note.c_str());
                if (s.headless) std::printf("demo_client %s: %s\n", s.name.c_str(), last_note.c_str());
                stored = {};
                join_as_new = true;
            } else if (ev.kind == session_event_kind::rejected || ev.kind == session_event_kind::disconnected) {
                exit_code = 3;
                reason = last_note;
            }
        }
        if (join_as_new) {
            if (!open_session(stored)) return 2;
            continue;
        }
        const auto st_now = client.state();
        if (!announced && (st_now == client_state::loading || st_now == client_state::running)) {
            announced = true; // the welcome arrived: the slot is known
            if (s.headless) {
                if (client.slot() >= 0) std::printf("demo_client %s: playing slot %d\n", s.name.c_str(), client.slot());
                else
                    std::printf("demo_client %s: watching as a spectator\n", s.name.c_str());
            }
        }
        // Keep the token the server issued (written once per new token, after the line above,
        // so a script that sees the file also sees the slot).
        if (keep_token) {
            const auto issued = client.reconnect_token();
            if (!issued.empty() && issued != stored) {
                stored = issued;
                if (auto kept = write_token_file(s.token_file, issued); !kept) {
                    last_note = "could not keep the reconnect token: " + kept.message();
                    if (s.headless) std::printf("%s\n", last_note.c_str());
                }
            }
        }
        if (s.headless) std::fflush(stdout); // a crashed client's log still shows how far it got
        if (s.duration_s > 0 && static_cast<double>(now - start) >= s.duration_s * 1000.0) {
            client.leave();
            exit_code = 0;
            reason = "duration reached";
        }
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
                          st.bytes_in_per_s * 8 / 1000.0, static_cast<unsigned long long>(desyncs), last_note.c_str());
            int cols = 80, rows = 24;
            term->size(cols, rows);
            capture(w, drawn);
            term->draw(render(drawn, cols, rows, status, client.slot()));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    term.reset(); // restore the terminal before printing the summary
    const client_session &client = *session;
    const auto &st = client.stats();
    const double secs = static_cast<double>(now_ms() - start) / 1000.0;
    std::printf("demo_client %s: %s\n", s.name.c_str(), reason.c_str());
    if (s.spectate) std::printf("  slot: spectator\n");
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
    std::printf("desyncs: %llu\n", static_cast<unsigned long long>(desyncs));
    return exit_code;
}

} // namespace retcon::demo
