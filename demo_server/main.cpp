// demo_server: hosts matches of the retcon demo game over ENet (one by default) with the match
// host (docs/hosting.md): open to anyone, or by join token; records replays; drains on SIGTERM.
#include <CLI/CLI.hpp>
#include <cli_ranges.hpp>
#include <retcon/host/match_host.hpp>

#include "server_app.hpp"

int main(int argc, char **argv) {
    retcon::demo::server_settings s;
    CLI::App app{"retcon demo server: matches of the arena game over ENet on one port, recorded as replays"};
    app.add_option("--port", s.port, "UDP port (0: a free one, printed when listening)")->capture_default_str();
    app.add_option("--players", s.players, "player slots (1-8)")->check(CLI::Range(1, 8))->capture_default_str();
    app.add_option("--max-spectators", s.max_spectators,
                   "spectator places apart from the player slots (0: none, at most 1000)")
        ->check(CLI::Range(0, 1000))
        ->capture_default_str();
    app.add_option("--matches", s.matches, "matches at once (open: kept running; with --token-key: opened by tokens)")
        ->check(CLI::Range(1u, retcon::max_host_matches))
        ->capture_default_str();
    app.add_option("--token-key", s.token_keys,
                   "admit players by join token only, signed by this key (a retcon-token verify-key file; give two "
                   "during a key rotation)");
    app.add_option("--fleet", s.fleet, "the fleet join tokens must name")->capture_default_str();
    app.add_option("--replay-dir", s.replay_dir, "record every match as DIR/<match id>.rcr");
    app.add_option("--keyframe-interval", s.keyframe_interval,
                   "frames between replay keyframes: a seek re-simulates up to this many frames less one, and "
                   "fewer keyframes make smaller replays (docs/benchmarks.md, \"Replays: size and seek\")")
        ->check(CLI::Range(1u, 1'000'000u))
        ->capture_default_str();
    app.add_option("--drain-grace", s.drain_grace_s, "on SIGTERM, running matches may go on this many seconds")
        ->check(retcon::tools::finite_range(0, 86400))
        ->capture_default_str();
    app.add_option("--metrics-port", s.metrics_port,
                   "serve Prometheus metrics on 127.0.0.1:PORT/metrics (0: a free port, -1: off)")
        ->check(CLI::Range(-1, 65535));
    app.add_option("--max-peers-per-address", s.max_peers_per_address,
                   "connections from one IP address (raise it for a load generator on one machine)")
        ->capture_default_str();
    app.add_option("--hellos-per-second", s.hellos_per_second,
                   "hellos one IP address may have routed a second, in bursts of twice as many (0: no limit; a load "
                   "generator on one machine sets 0)")
        ->capture_default_str();
    app.add_option("--tick", s.tick_hz, "simulation rate in Hz")->check(CLI::Range(10, 240))->capture_default_str();
    app.add_option(
        "--record", s.record,
        "write the first match's replay to this .rcr file (it must not exist: a replay is never overwritten)");
    app.add_option("--duration", s.duration_s,
                   "end each match after this many seconds, then exit (with --token-key: once --matches matches, "
                   "opened by their tokens, have ended; 0: matches end when their players leave, and open matches "
                   "are replaced; run until SIGTERM)")
        ->check(retcon::tools::finite_range(0, 86400));
    app.add_option("--trace", s.trace,
                   "write the first match's trace here when it ends (Trace Event Format JSON: open it in "
                   "ui.perfetto.dev)");
    app.add_option("--trace-dir", s.trace_dir,
                   "write each match's trace to DIR/<match id>.trace.json when it ends (not with --trace)")
        ->excludes("--trace");
    app.add_option("--forensics", s.forensics_dir, "directory for desync snapshots (retcon diff them)");
    app.add_option("--seed", s.seed, "world seed")->capture_default_str();
    app.add_option("--match-limit", s.match_limit, "serve this many matches, then drain and exit (0: no limit)")
        ->capture_default_str();
    app.add_option("--orchestrator", s.orchestrator, retcon::demo::orchestrator_help())
        ->check(CLI::IsMember(retcon::demo::orchestrator_choices()))
        ->capture_default_str();
    app.add_flag("--print-config", s.print_config,
                 "print the configuration (defaults, then the environment, then these options) as JSON and exit");
    app.add_flag("--quiet", s.quiet, "no per-second status line");
    app.footer("Environment: RETCON_PORT, RETCON_BIND, RETCON_MATCHES, RETCON_MATCH_LIMIT, RETCON_FLEET, "
               "RETCON_TOKEN_KEYS, RETCON_REPLAY_DIR, RETCON_DRAIN_GRACE_S, RETCON_METRICS_PORT, RETCON_METRICS_BIND "
               "and the platforms' variables configure the server (docs/hosting.md, \"Configuration from the "
               "environment\"); options given here win. --print-config shows the result.");
    CLI11_PARSE(app, argc, argv);
    for (const auto *opt : app.get_options())
        if (opt->count() > 0) s.given.insert(opt->get_name());
    return retcon::demo::run_server(s);
}
