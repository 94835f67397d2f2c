#ifndef RETCON_DEMO_SERVER_APP_HPP
#define RETCON_DEMO_SERVER_APP_HPP

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace retcon::demo {

/// @brief demo_server's settings (one per command-line option).
struct server_settings {
    std::uint16_t port = 7777;
    std::uint8_t players = 2;            ///< open mode: each match's player slots
    std::uint32_t max_spectators = 8;    ///< spectator places per match, apart from the player slots
    std::uint16_t tick_hz = 60;          ///< open mode
    std::uint32_t matches = 1;           ///< matches at once (open mode: kept running)
    std::vector<std::string> token_keys; ///< verify-key files: admit by join token only (docs/join-tokens.md)
    std::string fleet = "demo";          ///< the fleet tokens must name
    std::string record;                  ///< the first match's replay file ("" = none)
    std::string trace;                   ///< the first match's trace, written when it ends ("" = none)
    std::string trace_dir;               ///< every match's trace as DIR/<match id>.trace.json ("" = none)
    std::string replay_dir;              ///< every match's replay as DIR/<match id>.rcr
    /// Frames between a replay's keyframes: the seek cost (K - 1 steps at most) against the file
    /// size (docs/benchmarks.md, "Replays: size and seek").
    std::uint32_t keyframe_interval = 480;
    double duration_s = 0;     ///< each match ends after this long (0: when its players leave)
    double drain_grace_s = 30; ///< SIGTERM: running matches may go on this long
    std::string forensics_dir; ///< where desync snapshots go
    std::uint64_t seed = 1;    ///< open mode: match k gets seed + k - 1
    int metrics_port = -1;     ///< Prometheus text on 127.0.0.1:PORT/metrics (-1: off, 0: a free port)
    std::uint32_t max_peers_per_address = 8;
    std::uint32_t hellos_per_second = 10; ///< per IP address, in bursts of twice as many (0: no limit)
    std::uint32_t match_limit = 0;        ///< matches served in the process's life, then it exits (0: no limit)
    std::string orchestrator = "auto";    ///< auto (from the environment) or a name in retcon::orchestrators()
    bool print_config = false;            ///< print the effective configuration as JSON and exit
    bool quiet = false;
    /// @brief The options given on the command line: they win over the environment
    /// (RETCON_* and the platforms' variables, docs/hosting.md), which wins over the defaults.
    std::set<std::string> given;
};

/// @brief `--orchestrator`'s choices: "auto", then every name in retcon::orchestrators().
[[nodiscard]] std::vector<std::string> orchestrator_choices();
/// @brief `--orchestrator`'s help: each choice and what it does, from retcon::orchestrators().
[[nodiscard]] std::string orchestrator_help();

/// @brief Hosts the demo's matches until drained; returns the process exit status.
int run_server(const server_settings &settings);

} // namespace retcon::demo

#endif
