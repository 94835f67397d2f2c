#ifndef RETCON_DEMO_CLIENT_APP_HPP
#define RETCON_DEMO_CLIENT_APP_HPP

#include <cstdint>
#include <string>

namespace retcon::demo {

/// @brief demo_client's settings (one per command-line option).
struct client_settings {
    std::string host = "127.0.0.1";
    std::uint16_t port = 7777;
    std::string name = "player";
    bool bot = false;
    bool headless = false;
    bool spectate = false;
    std::uint64_t seed = 1;
    std::string replay;              ///< play this replay back instead of connecting
    std::string hash_log;            ///< write "frame hash" of every confirmed frame here
    std::string check_hash_log;      ///< with --replay: compare this log with the replay's hashes
    std::int64_t debug_desync = -1;  ///< this client's "movement" system misbehaves at this frame (desync drill)
    std::int64_t debug_corrupt = -1; ///< corrupt the world between frames at this frame (desync drill)
    std::string trace;               ///< write the session's trace here when leaving ("" = none)
    std::string flight_recorder;     ///< the flight recorder's directory ("" = off)
    double duration_s = 0;           ///< leave after this long (0: until the match ends)
    double speed = 1.0;              ///< replay playback speed
    std::uint32_t connect_timeout_ms = 5000; ///< give up if the server has not welcomed us by then
    /// Reconnection attempts after a lost connection (client_options::reconnect; 0: none).
    std::uint32_t reconnect_attempts = 0;
    /// Keep the server's reconnect token here and present it on the next start, to take the
    /// same slot back after a crash (token_file.hpp); a spectator ignores it. A secret: 0600.
    std::string token_file;
    /// A join token's text from the studio's lobby or `retcon-token issue`, for a server that
    /// admits players by token (docs/join-tokens.md); empty: none (an open server).
    std::string join_token;
    // The window (demo_client --window; window/window_app.hpp).
    bool window = false;         ///< draw in an SDL2 window instead of the terminal
    std::string screenshot;      ///< on leaving, save the window's last picture here (BMP)
    bool net_graph = false;      ///< start with the net graph shown (key G toggles it)
    bool show_predicted = false; ///< start with predicted ships highlighted (key P toggles it)
    std::int64_t seek = -1;      ///< with --replay: start at this frame (-1: the first)
    bool paused = false;         ///< with --replay: start paused
    // Player slots, tick rate and input delay are the server's (protocol version 2): the
    // client learns them from the welcome.
};

/// @brief Plays a live match; returns the exit status (0: match ended normally).
int run_client(const client_settings &settings);
/// @brief Plays back and verifies a replay; returns the exit status (0: every hash matched).
int run_replay(const client_settings &settings);

} // namespace retcon::demo

#endif
