#ifndef RETCON_HOST_HOST_TIME_HPP
#define RETCON_HOST_HOST_TIME_HPP

// The host's readings of the clocks: steady time for scheduling and costs, the calendar for
// join token expiry (docs/join-tokens.md). The parts take times as arguments; only the
// orchestrating loop (match_host.cpp) and the tick timing read the clocks.
#include <chrono>
#include <cstdint>

namespace retcon::host_time {

/// @brief Steady time in microseconds (scheduling, timeouts).
inline std::uint64_t now_us() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count());
}

/// @brief Steady time in nanoseconds (tick costs).
inline std::uint64_t now_ns() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count());
}

/// @brief Calendar seconds since 1970 (join token issue and expiry times).
inline std::uint64_t unix_seconds() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<seconds>(system_clock::now().time_since_epoch()).count());
}

} // namespace retcon::host_time

#endif
