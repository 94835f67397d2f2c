// demo_client: plays the retcon demo game in the terminal (or headless, or as a bot), or plays
// back and verifies a recorded replay.
#include <CLI/CLI.hpp>

#include "client_app.hpp"

int main(int argc, char **argv) {
    retcon::demo::client_settings s;
    std::string connect = "127.0.0.1:7777";
    CLI::App app{"retcon demo client: the arena game over ENet with prediction and rollback"};
    app.add_option("--connect", connect, "server HOST:PORT")->capture_default_str();
    app.add_option("--name", s.name, "player name")->capture_default_str();
    app.add_option("--input-delay", s.input_delay, "frames of input delay (the minimum when adaptive)")->check(CLI::Range(0, 10))->capture_default_str();
    app.add_option("--max-input-delay", s.max_input_delay, "input delay adapts to half the round trip up to this")->check(CLI::Range(0, 30))->capture_default_str();
    app.add_option("--players", s.players, "player slots (must match the server)")->check(CLI::Range(1, 8))->capture_default_str();
    app.add_option("--tick", s.tick_hz, "simulation rate (must match the server)")->capture_default_str();
    app.add_flag("--bot", s.bot, "play by itself (seeded)");
    app.add_flag("--headless", s.headless, "draw nothing; print a summary at exit");
    app.add_flag("--spectate", s.spectate, "watch without a player slot");
    app.add_option("--seed", s.seed, "bot seed")->capture_default_str();
    app.add_option("--replay", s.replay, "play back (and verify) a recorded .rcr match");
    app.add_option("--speed", s.speed, "replay playback speed")->capture_default_str();
    app.add_option("--hash-log", s.hash_log, "write every confirmed frame's world hash to this file");
    app.add_option("--check-hash-log", s.check_hash_log, "with --replay: compare a --hash-log file with the replay");
    app.add_option("--debug-desync", s.debug_desync, "corrupt one component at this frame, to show desync handling");
    app.add_option("--duration", s.duration_s, "leave after this many seconds (0: until the match ends)");
    CLI11_PARSE(app, argc, argv);
    const auto colon = connect.rfind(':');
    if (colon == std::string::npos) {
        std::fprintf(stderr, "demo_client: --connect wants HOST:PORT, got '%s'\n", connect.c_str());
        return 2;
    }
    s.host = connect.substr(0, colon);
    s.port = static_cast<std::uint16_t>(std::stoi(connect.substr(colon + 1)));
    return s.replay.empty() ? retcon::demo::run_client(s) : retcon::demo::run_replay(s);
}
