#ifndef RETCON_DEMO_SERVER_APP_HPP
#define RETCON_DEMO_SERVER_APP_HPP

#include <cstdint>
#include <string>

namespace retcon::demo {

/// @brief demo_server's settings (one per command-line option).
struct server_settings {
    std::uint16_t port = 7777;
    std::uint8_t players = 2;
    std::uint32_t max_spectators = 8; ///< spectator places apart from the player slots
    std::uint16_t tick_hz = 60;
    std::string record;          ///< replay file to write ("" = none)
    double duration_s = 0;       ///< 0: until SIGINT/SIGTERM
    std::string forensics_dir;   ///< where desync snapshots go
    std::uint64_t seed = 1;
    bool quiet = false;
};

/// @brief Serves one match; returns the process exit status.
int run_server(const server_settings &settings);

} // namespace retcon::demo

#endif
