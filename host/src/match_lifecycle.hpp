#ifndef RETCON_HOST_MATCH_LIFECYCLE_HPP
#define RETCON_HOST_MATCH_LIFECYCLE_HPP

#include <retcon/host/match_host.hpp>
#include <retcon/net/events.hpp>
#include <retcon/net/trace_writer.hpp>
#include <retcon/net/transport_mux.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "drain.hpp"
#include "hosted_match.hpp"
#include "result_writer.hpp"
#include "scheduler.hpp"

namespace retcon {

/// @brief What a session event changed of its match's record.
enum class event_effect : std::uint8_t { none, joined, left, recording_failed };

/// @brief Applies @p ev to @p m's record (joins, names, who was present at the end, a failed
/// recording). A failed recording is an effect once: its first failure, which stopped it.
event_effect apply_event(hosted_match &m, const session_event &ev);

/// @brief Why the running match @p m, with @p players players at @p now_us, ends now (nullopt:
/// it goes on): a drain (forced, over its grace, or the match empty), its duration, or empty
/// for `empty_timeout_ms`. Updates when the match became empty.
[[nodiscard]] std::optional<std::string> end_reason_now(hosted_match &m, int players, std::uint64_t now_us,
                                                        const host_options &o, const drain_control &drain,
                                                        bool open_mode);

/// @brief The result of the ended match @p m at @p now_us, without the game's report and the
/// route's byte counts (the lifecycle adds them).
[[nodiscard]] match_result result_of(const hosted_match &m, std::uint64_t now_us);

/**
 * @brief The matches' lifecycle (docs/hosting.md, "Inside the host"): opens a match (the
 * game's factory, its session on a route of the mux, its replay path, its clock from the
 * scheduler), ends it (drain, duration, empty, a failure that stays inside the match), and
 * finishes it (its result to the results thread, its place freed).
 */
class match_lifecycle {
public:
    match_lifecycle(const host_options &options, game_factory factory, transport_mux &mux, frame_scheduler &scheduler,
                    host_metrics &live, result_writer &results, std::function<void(std::string_view)> log);

    /// @brief The admission hook for the session of match place @p i (the host's admission).
    std::function<admission_fn(std::size_t)> session_admission;
    /// @brief The match in place @p i, id @p id, has finished and left its place.
    std::function<void(std::size_t, const std::string &)> finished;

    [[nodiscard]] std::vector<std::unique_ptr<hosted_match>> &matches() noexcept { return matches_; }
    [[nodiscard]] const std::vector<std::unique_ptr<hosted_match>> &matches() const noexcept { return matches_; }
    [[nodiscard]] std::optional<std::size_t> find(const std::string &id) const;
    [[nodiscard]] bool open_mode() const noexcept { return opt_.token_keys.empty(); }
    /// @brief The host has opened as many matches as it serves in its life (host_options::match_limit).
    [[nodiscard]] bool limit_reached() const noexcept {
        return opt_.match_limit != 0 && live_.matches_opened >= opt_.match_limit;
    }
    /// @brief Matches not ending.
    [[nodiscard]] std::size_t running() const noexcept;
    [[nodiscard]] bool empty() const noexcept;

    /// @brief Opens match @p id in a free place at @p now_us. A match whose replay file exists
    /// is refused as ended: a replay is never overwritten (docs/hosting.md, "Ended matches").
    [[nodiscard]] result<std::size_t> open(const std::string &id, const match_params &params, std::uint64_t now_us);
    /// @brief Open mode: keeps `open_matches` running, opening them one stagger apart so their
    /// keyframes and chunk writes fall on different frames (docs/hosting.md, "Scheduling").
    /// False when a match could not open (the host then drains with status 1).
    [[nodiscard]] bool open_missing(std::uint64_t now_us);
    /// @brief When open_missing may open the next match (µs).
    [[nodiscard]] std::uint64_t next_open_us() const noexcept { return next_open_us_; }
    /// @brief Open mode without reopening: every match it will open has opened.
    [[nodiscard]] bool opened_all() const noexcept { return open_sequence_ >= opt_.open_matches; }

    /// @brief Ends @p m for @p reason (nothing if it is ending already).
    void end(hosted_match &m, std::string reason, std::uint64_t now_us);
    /// @brief Ends @p m because its game or a misuse report failed with @p what.
    void fail(hosted_match &m, const std::string &what, std::uint64_t now_us);
    /// @brief Runs @p fn on @p m; an exception (the game's, or a misuse report) ends the match.
    template<class F>
    void guarded(hosted_match &m, std::uint64_t now_us, F &&fn) {
        try {
            fn();
        } catch (const std::exception &e) {
            fail(m, e.what(), now_us);
        }
    }
    /// @brief The session's events: the match's record, the log, and the failed recordings'
    /// counter (host_metrics::recordings_failed).
    void handle_events(hosted_match &m);
    /// @brief The ending match in place @p i has said its goodbyes: its result goes to the
    /// results thread and its place is free.
    void finish(std::size_t i, std::uint64_t now_us);

    void log_match(const hosted_match &m, const std::string &text) { log_("match=" + m.id + " " + text); }

    /// @brief Waits for the trace writer's queued traces (host_options::trace_dir) and logs
    /// the ones that could not be written; true if none failed since the last call.
    bool flush_traces();

private:
    result<std::size_t> open_at(std::size_t place, const std::string &id, const match_params &params,
                                std::uint64_t now_us);
    void begin_end(hosted_match &m, std::string reason, std::uint64_t now_us);
    /// Where match @p id is recorded (empty: not recorded).
    [[nodiscard]] std::filesystem::path replay_path_of(const std::string &id) const;

    const host_options &opt_;
    game_factory factory_;
    transport_mux &mux_;
    frame_scheduler &scheduler_;
    host_metrics &live_;
    result_writer &results_;
    std::function<void(std::string_view)> log_;
    // Before matches_: the sessions' flight recorders use it until they are gone.
    std::unique_ptr<trace_writer> traces_; // trace_dir's writer thread (null: no trace_dir)
    /// Logs the traces the writer could not write (from the ticking thread: a check, then text).
    bool report_trace_failures();
    std::uint64_t trace_failures_ = 0, trace_drops_ = 0; // reported so far
    std::vector<std::unique_ptr<hosted_match>> matches_; // index: match place; null: free
    std::unordered_map<std::string, std::size_t> by_id_;
    std::uint64_t open_sequence_ = 0;
    std::uint64_t skipped_ids_ = 0; // open ids passed over: their replays exist
    std::uint64_t next_open_us_ = 0;
    bool single_replay_used_ = false;
    bool single_trace_used_ = false;
};

} // namespace retcon

#endif
