// demo_server: serves one match of the retcon demo game over ENet and records its replay.
#include <CLI/CLI.hpp>

#include "server_app.hpp"

int main(int argc, char **argv) {
    retcon::demo::server_settings s;
    CLI::App app{"retcon demo server: one match of the arena game over ENet, recorded as a replay"};
    app.add_option("--port", s.port, "UDP port (0: a free one, printed when listening)")->capture_default_str();
    app.add_option("--players", s.players, "player slots (1-8)")->check(CLI::Range(1, 8))->capture_default_str();
    app.add_option("--max-spectators", s.max_spectators, "spectator places apart from the player slots (0: none, at most 1000)")
        ->check(CLI::Range(0, 1000))
        ->capture_default_str();
    app.add_option("--tick", s.tick_hz, "simulation rate in Hz")->check(CLI::Range(10, 240))->capture_default_str();
    app.add_option("--record", s.record, "write the match replay to this .rcr file");
    app.add_option("--duration", s.duration_s, "end the match after this many seconds (0: run until stopped)");
    app.add_option("--forensics", s.forensics_dir, "directory for desync snapshots (retcon diff them)");
    app.add_option("--seed", s.seed, "world seed")->capture_default_str();
    app.add_flag("--quiet", s.quiet, "no per-second statistics");
    CLI11_PARSE(app, argc, argv);
    return retcon::demo::run_server(s);
}
