#ifndef RETCON_HOST_ORCHESTRATOR_HPP
#define RETCON_HOST_ORCHESTRATOR_HPP

#include <memory>
#include <string>
#include <string_view>

namespace retcon {

class match_host;

/**
 * @brief What runs the server process — Agones, an environment-only host such as Edgegap or
 * Hathora, or nothing but a plain VM — told of the host's lifecycle (docs/hosting.md,
 * "Orchestrators").
 *
 * An orchestrator never talks to the platform on the host's ticking thread: it keeps threads
 * of its own, so a slow or restarting platform never delays a match. `serve` drives it.
 */
class orchestrator {
public:
    virtual ~orchestrator() = default;
    /// @brief Short name for the log ("agones", "edgegap", "hathora", "plain").
    [[nodiscard]] virtual std::string_view name() const noexcept = 0;
    /// @brief The host is bound and about to run: start talking to the platform (returns at once).
    /// The orchestrator may add hooks to @p host: it must outlive the host's `run`.
    virtual void start(match_host &host) = 0;
    /// @brief The platform asked the process to stop (SIGTERM). Async-signal-safe.
    virtual void terminate() noexcept = 0;
    /// @brief The host's `run` returned @p status: tell the platform the server is done, wait
    /// (bounded) until it stops the process or `terminate` is called, stop every thread.
    /// Returns the process exit status.
    virtual int finish(int status) = 0;
};

/// @brief The orchestrator for a plain VM or a developer's machine: it does nothing (systemd
/// sends SIGTERM; deploy/systemd has the unit).
[[nodiscard]] std::unique_ptr<orchestrator> make_plain_orchestrator();

/// @brief `serve`'s settings.
struct serve_options {
    /// @brief Install handlers for the run: SIGTERM drains the host (matches may finish within
    /// the drain grace) and tells the orchestrator; SIGINT (Ctrl-C) ends every match at once,
    /// still with complete replays. The previous handlers are restored afterwards.
    bool handle_signals = true;
};

/**
 * @brief Runs @p host under @p orch: `start`, `match_host::run`, then `finish`; returns the
 * process exit status (0 when every match ended with a complete replay).
 */
int serve(match_host &host, orchestrator &orch, const serve_options &options = {});

} // namespace retcon

#endif
