// demo_client: plays the retcon demo game in the terminal (or headless, or as a bot), or plays
// back and verifies a recorded replay.
#include <CLI/CLI.hpp>
#include <cli_ranges.hpp>

#include "client_app.hpp"
#ifdef RETCON_DEMO_HAS_WINDOW
#    include "window_app.hpp"
#endif

int main(int argc, char **argv) {
    retcon::demo::client_settings s;
    std::string connect = "127.0.0.1:7777";
    CLI::App app{"retcon demo client: the arena game over ENet with prediction and rollback.\n"
                 "It needs only the server's address: player slots, tick rate and input delay come from the server."};
    app.add_option("--connect", connect, "server HOST:PORT")->capture_default_str();
    app.add_option("--name", s.name, "player name")->capture_default_str();
    app.add_option("--connect-timeout", s.connect_timeout_ms, "give up after this many ms without the server's welcome")
        ->capture_default_str();
    // Protocol version 2: the server sends player slots, tick rate and input delay in its
    // welcome. The old options are still accepted (scripts pass them) and ignored.
    int ignored[4] = {};
    const char *const old_options[4] = {"--players", "--tick", "--input-delay", "--max-input-delay"};
    for (int i = 0; i < 4; ++i)
        app.add_option(old_options[i], ignored[i],
                       "ignored: the server sets it in its welcome (since protocol version 2)")
            ->group("Ignored (the server decides)");
    app.add_flag("--bot", s.bot, "play by itself (seeded)");
    app.add_flag("--headless", s.headless, "draw nothing; print a summary at exit");
    app.add_flag("--spectate", s.spectate, "watch without a player slot");
    app.add_option("--token-file", s.token_file,
                   "keep the server's reconnect token in this file (0600) and present it at the next start, to "
                   "take the same slot back after a crash (a token the server does not know: joins as a new player); a "
                   "secret: never share it (ignored with --spectate)");
    app.add_option("--reconnect", s.reconnect_attempts,
                   "after losing the connection mid-match, connect again by itself up to this many times with the "
                   "server's reconnect token (0: give up at once)")
        ->check(CLI::Range(0u, 100u))
        ->capture_default_str();
    app.add_option("--token", s.join_token,
                   "the join token a lobby (or retcon-token issue) gave for this match, when the server requires one");
    app.add_option("--seed", s.seed, "bot seed")->capture_default_str();
    app.add_option("--replay", s.replay, "play back (and verify) a recorded .rcr match");
    app.add_option("--speed", s.speed, "replay playback speed")
        ->check(retcon::tools::finite_range(0.125, 64))
        ->capture_default_str();
    app.add_option("--hash-log", s.hash_log, "write every confirmed frame's world hash to this file");
    app.add_option("--check-hash-log", s.check_hash_log, "with --replay: compare a --hash-log file with the replay");
    app.add_option("--trace", s.trace,
                   "write the match's trace here when leaving (Trace Event Format JSON: open it in ui.perfetto.dev); "
                   "with --replay --headless: the re-simulated replay's trace");
    app.add_option("--flight-recorder", s.flight_recorder,
                   "on a desync, resync or stall, write the last seconds of trace to DIR/flight-<frame>-<why>.json "
                   "(the directory must exist)");
    app.add_option("--debug-desync", s.debug_desync,
                   "make the \"movement\" system non-deterministic at this frame, to show the server naming it");
    app.add_option("--debug-corrupt", s.debug_corrupt,
                   "corrupt one component between frames at this frame, to show desync handling");
    app.add_option("--duration", s.duration_s, "leave after this many seconds (0: until the match ends)")
        ->check(retcon::tools::finite_range(0, 86400));
    app.add_flag("--window", s.window,
                 "draw in a window (SDL2) instead of the terminal; with --replay, the replay viewer");
    app.add_option("--screenshot", s.screenshot,
                   "with --window: save the last picture drawn to this BMP file on leaving");
    app.add_flag("--net-graph", s.net_graph, "with --window: start with the net graph shown (G toggles it)");
    app.add_flag("--show-predicted", s.show_predicted,
                 "with --window: start with predicted ships drawn in white (P toggles it)");
    app.add_option("--seek", s.seek, "with --window --replay: start at this frame");
    app.add_flag("--paused", s.paused, "with --window --replay: start paused");
    CLI11_PARSE(app, argc, argv);
    const auto colon = connect.rfind(':');
    if (colon == std::string::npos) {
        std::fprintf(stderr, "demo_client: --connect wants HOST:PORT, got '%s'\n", connect.c_str());
        return 2;
    }
    s.host = connect.substr(0, colon);
    s.port = static_cast<std::uint16_t>(std::stoi(connect.substr(colon + 1)));
    if (s.window) {
#ifdef RETCON_DEMO_HAS_WINDOW
        return s.replay.empty() ? retcon::demo::run_window_client(s) : retcon::demo::run_window_replay(s);
#else
        std::fprintf(stderr, "demo_client: this build has no window (SDL2 and SDL2_ttf were not found at configure "
                             "time; scripts/setup.sh installs them)\n");
        return 2;
#endif
    }
    return s.replay.empty() ? retcon::demo::run_client(s) : retcon::demo::run_replay(s);
}
