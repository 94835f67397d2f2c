#ifndef RETCON_HOST_MATCH_HOST_HPP
#define RETCON_HOST_MATCH_HOST_HPP

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <retcon/ecs/step.hpp>
#include <retcon/ecs/world.hpp>
#include <retcon/net/server_session.hpp>
#include <retcon/net/session_config.hpp>

#include "host_metrics.hpp"
#include "join_token.hpp"
#include "match_result.hpp"

namespace retcon {

/// @brief What the host needs of the game to run one match: its starting world, its step and
/// its compiled-in session settings. The host sets `config.max_players` and `config.tick_hz`
/// from the match's parameters.
struct hosted_game {
    std::unique_ptr<world> state; ///< the starting world (the host owns it for the match)
    step_function step{};
    session_config config{};
    /// @brief Fills each slot's score and outcome from the final world (optional).
    std::function<void(const world &final_world, std::span<slot_result> slots)> report;
    /// @brief Key/value pairs recorded in the replay's metadata (besides the match id).
    std::vector<std::pair<std::string, std::string>> metadata{};
};

/// @brief Makes a match's game from its parameters (from the join token that opened it, or
/// host_options::open_params). An error refuses the token with its message.
using game_factory = std::function<result<hosted_game>(const match_params &params)>;

/// @brief The most matches one host runs at once: ENet gives one socket at most 4095 peers, and a
/// thousand matches of a few players each already use them (host_options::max_matches).
inline constexpr std::uint32_t max_host_matches = 1000;

/// @brief A match host's settings (docs/hosting.md has the defaults' reasons).
struct host_options {
    std::uint16_t port = 7777;     ///< UDP port (0: a free one, see match_host::port)
    std::string bind_host{};       ///< local address to listen on (empty: all)
    std::uint32_t max_matches = 1; ///< matches running at once, 1..max_host_matches (token mode: opened on demand)

    /// @name Admission
    /// @{
    /// @brief Public keys whose join tokens are accepted (two during a rotation). Empty: open
    /// mode — anyone may join, and the host keeps `open_matches` matches of `open_params`.
    std::vector<verify_key> token_keys{};
    std::string fleet{};             ///< tokens must name this fleet
    std::uint32_t clock_skew_s = 30; ///< tolerance on a token's issue and expiry times
    /// @brief Hellos one IP address may have routed, per second on average, in bursts of
    /// `hello_burst`; beyond, connections are dropped unanswered (0: no limit). Both modes: a
    /// forged token costs a signature check, and an open-mode hello holds a place until its
    /// session answers; this bounds what one address can make the host spend or hold. Players
    /// behind one NAT share it (docs/hosting.md, "Admission").
    std::uint32_t hellos_per_second = 10;
    std::uint32_t hello_burst = 20;
    std::uint32_t open_matches = 1; ///< open mode: matches kept running (≤ max_matches)
    match_params open_params{};     ///< open mode: every match's parameters (seed + match number)
    /// @brief Open mode: a match that ended is replaced by a fresh one. Off, `run` returns once
    /// the first `open_matches` have ended (demo_server --duration).
    bool reopen_matches = true;
    /// @brief Matches this process serves in its life (0: no limit). Once that many have
    /// opened it admits no new match, and it drains when they have ended: one match per
    /// process is how a plain Agones fleet runs (docs/hosting.md, "Agones").
    std::uint32_t match_limit = 0;
    /// @brief Connections from one IP address, in any state (enet_options::max_peers_per_address;
    /// a load generator on one machine raises it).
    std::size_t max_peers_per_address = 8;
    /// @}

    /// @name Matches
    /// @{
    server_options session{}; ///< each match's session tuning (record_path is set per match)
    /// @brief Where each match's replay goes, as `<replay_dir>/<match id>.rcr` (empty: not
    /// recorded). `create` makes the directory if it is missing (mode 0750 less the umask) and
    /// refuses one it cannot make or write in (docs/hosting.md, "Replay directory"). A replay is
    /// never overwritten: a match whose replay exists does not open, and open mode numbers its
    /// matches past the replays there. In token mode the directory also holds the ended-matches
    /// ledger (docs/hosting.md, "Ended matches").
    std::filesystem::path replay_dir{};
    /// @brief Replaces the replay path of a host with one open match (demo_server --record); it
    /// must not exist. Its directory is made as `replay_dir` is.
    std::filesystem::path single_replay_path{};
    /// @brief The first match's trace (demo_server --trace): that match alone keeps one, sized by
    /// `session.trace.records` (0: 524,288 records, 20 MiB), and writes it here as Trace Event Format
    /// JSON when it ends (docs/net.md, "Reading a trace"). Empty: `session.trace` applies to
    /// every match and nothing is written for them.
    std::filesystem::path single_trace_path{};
    /**
     * @brief One trace per match (demo_server --trace-dir): every match keeps a trace, sized by
     * `session.trace.records` (0: 131,072 records, 5 MiB a match), and writes it here as
     * `<match id>.trace.json` when it ends, through the host's trace writer thread, not the
     * ticking thread (docs/hosting.md, "Traces"). The host's matches' flight recorder dumps
     * (with `session.forensics_dir`) share that thread. Made at start like `replay_dir`. Empty: off;
     * not with `single_trace_path`.
     */
    std::filesystem::path trace_dir{};
    std::uint32_t match_duration_ms = 0; ///< a match ends after this long (0: when its players have left)
    /// @brief A match with no player for this long ends ("players left"); one that a token opened
    /// and nobody joined too. Open mode keeps waiting for the first player.
    std::uint32_t empty_timeout_ms = 10000;
    std::uint32_t drain_grace_ms = 30000; ///< how long running matches may go on once draining
    /// @}

    /// @name Observability
    /// @{
    bool serve_metrics = false;        ///< Prometheus text on http://metrics_bind:metrics_port/metrics
    std::uint16_t metrics_port = 9100; ///< 0: a free one (match_host::metrics_port says which)
    std::string metrics_bind = "127.0.0.1";
    /// @}
};

/**
 * @brief Runs many matches in one process on one UDP port (one ENet host) with one scheduling
 * thread (docs/hosting.md).
 *
 * Each match has its own world, server_session, replay and parameters. The thread that calls
 * `run` owns the socket and every match: it sleeps until the next frame deadline or until a
 * packet arrives, ticks each match on time (each at its own phase of the tick period), and
 * measures lateness. Admission is by signed join token (docs/join-tokens.md) or open. A match
 * whose game throws (a misuse report throws while `run` is active) ends alone, its replay
 * finished and its players told. `request_drain` (async-signal-safe) stops admitting; running
 * matches may finish within `drain_grace_ms`, then are ended; a second request ends them at
 * once. `run` returns when every match has ended and its replay is complete.
 *
 * Helper threads: one writes match results (hashes the replay file, calls on_result, logs
 * the JSON line); one serves the metrics page. Only they allocate in steady state.
 */
class match_host {
public:
    /// @brief Binds the port and prepares the host; open mode opens its matches during `run`.
    /// Makes a missing `replay_dir`, and refuses one that is not a directory or that cannot be
    /// made or written in (the error names the path and the system's reason), an existing
    /// `single_replay_path`, and in token mode with a `replay_dir` an ended-matches ledger there
    /// that cannot be read (the error names the file and line).
    static result<std::unique_ptr<match_host>> create(host_options options, game_factory factory);
    ~match_host();
    match_host(const match_host &) = delete;
    match_host &operator=(const match_host &) = delete;

    /// @brief Serves until drained (see the class comment). Returns the process exit status the
    /// host suggests (docs/hosting.md, "Exit status"): 0 when every match ended and every replay
    /// asked for was written; 1 when a replay could not be written (its match's result says
    /// `recording_failed`; host_metrics::recordings_failed counts them) or an open-mode match
    /// could not be opened.
    int run();
    /// @brief Stop admitting and drain; a second call forces the ending. Safe from a signal
    /// handler and from any thread.
    void request_drain() noexcept;

    /// @brief Adds a function called on the results thread for every match that ended (every
    /// function added is called, in the order added: the game's and an orchestrator's).
    void on_result(std::function<void(const match_result &)> fn);
    /// @brief Adds a function called on the results thread when a match opens, in order with
    /// `on_result` (an orchestrator pairs matches with allocations from it).
    void on_match_opened(std::function<void(const std::string &match_id, const match_params &params)> fn);
    /// @brief Receives every log line (no newline), on the thread that produced it; default:
    /// standard output. Lines about a match start with `match=<id>`. A line is always one line
    /// of printable UTF-8: control bytes and bytes that are not UTF-8 arrive as `\xNN`, and
    /// names and other strings from peers are escaped (docs/hosting.md, "Logs").
    void on_log(std::function<void(std::string_view line)> fn);

    /// @brief Writes @p line to the host's log (see on_log), from any thread.
    void log(std::string_view line);

    /// @brief The UDP port the host listens on.
    [[nodiscard]] std::uint16_t port() const noexcept;
    /// @brief The metrics page's TCP port (0: off).
    [[nodiscard]] std::uint16_t metrics_port() const noexcept;
    /// @brief A consistent copy of the counters as of the last second (any thread).
    [[nodiscard]] host_metrics metrics() const;
    /// @brief Advances at least ten times a second while `run`'s thread is scheduling, and
    /// stops when a tick hangs: an orchestrator reports health only while it moves (any thread).
    [[nodiscard]] std::uint64_t heartbeat() const noexcept;
    /// @brief False once the host opens no new match: draining, or its match limit reached
    /// (any thread; an orchestrator then stops advertising the server for allocation).
    [[nodiscard]] bool admitting() const noexcept;
    /// @brief The settings the host was created with.
    [[nodiscard]] const host_options &options() const noexcept;

private:
    struct impl;
    explicit match_host(std::unique_ptr<impl> p);
    std::unique_ptr<impl> impl_;
};

} // namespace retcon

#endif
