#ifndef RETCON_DEMO_LIVE_MATCH_HPP
#define RETCON_DEMO_LIVE_MATCH_HPP
// A live match as demo_client plays it, whatever draws it: the ENet connection and its client
// session, the token file and join token, the hash log, the desync drill, the bot, what the
// session's events mean for the exit status, and the summary printed on leaving. The terminal
// (client_app.cpp) and the window (window/window_client.cpp) differ only in drawing and input.

#include <retcon/net.hpp>
#include <retcon_demo/game.hpp>

#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "client_app.hpp"

namespace retcon::demo {

/// @brief Milliseconds of a steady clock (the sessions' clock in demo_client).
[[nodiscard]] std::uint64_t now_ms();

/**
 * @brief One player's (or spectator's) live match.
 *
 * The loop around it: poll(), the caller's quit check (leave()), `while (should_tick(now))
 * tick(input)`, after_ticks(), drawing; until done(). Then finish() prints the summary.
 */
class live_match {
public:
    /// @brief @p log: print the slot, the session's events and token trouble on stdout (the
    /// headless client and the window; the terminal shows them in its status line instead).
    live_match(const client_settings &settings, bool log);
    ~live_match();
    live_match(const live_match &) = delete;
    live_match &operator=(const live_match &) = delete;

    /// @brief Reads the token file and join token and connects; false after saying why on stderr
    /// (the caller exits with status 2).
    [[nodiscard]] bool open();

    /// @brief Receives what arrived by @p now and arms the desync drill when its frame is due.
    void poll(std::uint64_t now);
    /// @brief True when a frame is due (client_session::should_tick).
    [[nodiscard]] bool should_tick(std::uint64_t now) { return session_->should_tick(now); }
    /// @brief Advances one frame with @p local (the keyboard's input), or the bot's with --bot.
    /// Returns whether the session advanced.
    bool tick(const player_input &local);
    /**
     * @brief Handles the session's events (each is passed to @p on_event first), a refused stale
     * reconnect token (joins again as a new player), the token file, and --duration.
     */
    void after_ticks(std::uint64_t now, const std::function<void(const session_event &)> &on_event = {});
    /// @brief Leaves the match on the player's wish (exit status 0, "left the match").
    void leave();

    /// @brief True once the match is over for this client (ended, refused, lost, left, timed out).
    [[nodiscard]] bool done() const noexcept { return exit_code_ >= 0; }
    /// @brief Prints the summary (unless connecting again failed) and returns the exit status.
    [[nodiscard]] int finish();

    [[nodiscard]] client_session &session() noexcept { return *session_; }
    [[nodiscard]] const client_session &session() const noexcept { return *session_; }
    /// @brief The simulated world (the session's; draw a scene copied from it, never the world).
    [[nodiscard]] const world &game_world() const noexcept { return world_; }
    /// @brief The last event or note, for a status line.
    [[nodiscard]] const std::string &last_note() const noexcept { return last_note_; }
    [[nodiscard]] std::uint64_t desyncs() const noexcept { return desyncs_; }
    /// @brief When open() connected (ms, now_ms()): --duration counts from here.
    [[nodiscard]] std::uint64_t start_ms() const noexcept { return start_; }

private:
    bool open_session();

    const client_settings &s_;
    const bool log_;
    world world_;
    std::shared_ptr<game> game_ = std::make_shared<game>();
    client_config config_;
    bool keep_token_ = false;
    reconnect_token stored_; // what the token file holds (empty: none yet)
    std::vector<std::byte> join_token_;
    std::ofstream hash_log_;
    // A connection and its session; a second one when the server refuses the stored reconnect
    // token and the client joins as a new player instead.
    std::unique_ptr<transport> net_;
    std::unique_ptr<client_session> session_;
    bot ai_;
    std::string last_note_;
    std::uint64_t desyncs_ = 0;
    int exit_code_ = -1;
    bool reopen_failed_ = false;
    std::string reason_;
    std::uint64_t start_ = 0;
    bool corrupted_ = false;
    std::string verdict_;    // the first desync the server bisected: "frame 300, system \"movement\""
    bool announced_ = false; // "playing slot N" printed
};

} // namespace retcon::demo

#endif
