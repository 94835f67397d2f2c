#ifndef RETCON_HOST_HEALTH_GATE_HPP
#define RETCON_HOST_HEALTH_GATE_HPP

#include <cstdint>

namespace retcon {

/**
 * @brief Decides whether an orchestrator may report the host healthy: only while the host's
 * heartbeat (match_host::heartbeat) moved within the last window. A hung tick stops the
 * heartbeat, so health stops and the platform replaces the server (docs/hosting.md, "Health").
 * Times are the caller's (an injected clock in tests).
 */
class health_gate {
public:
    explicit health_gate(std::uint64_t window_us) noexcept : window_us_{window_us} {}
    /// @brief Samples the heartbeat at @p now_us; true if it moved within the window. Sample
    /// more often than the window: a move is dated at the sample that sees it.
    bool healthy(std::uint64_t heartbeat, std::uint64_t now_us) noexcept {
        if (!sampled_ || last_value_ != heartbeat) {
            sampled_ = true;
            last_value_ = heartbeat;
            last_move_us_ = now_us;
        }
        return now_us - last_move_us_ <= window_us_;
    }

private:
    std::uint64_t window_us_;
    bool sampled_ = false;
    std::uint64_t last_value_ = 0;
    std::uint64_t last_move_us_ = 0;
};

} // namespace retcon

#endif
