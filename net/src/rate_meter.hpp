#ifndef RETCON_NET_SRC_RATE_METER_HPP
#define RETCON_NET_SRC_RATE_METER_HPP

#include <retcon/net/stats.hpp>

#include <cstdint>

namespace retcon::internal {

/// @brief The per-second rates of `session_stats` (bytes in and out, rollbacks, re-simulated
/// frames) from running totals, updated once a second (docs/net.md, "Stats").
class rate_meter {
public:
    /// @brief At @p now_ms, updates @p s's rates if a second has passed since the last update.
    /// The first call only starts the clock (what was counted before it is not a rate).
    void update(std::uint64_t now_ms, session_stats &s, std::uint64_t bytes_in, std::uint64_t bytes_out) {
        if (last_ms_ == 0) { // the first call starts the clock and the totals the rates count from
            last_ms_ = now_ms;
            in_ = bytes_in;
            out_ = bytes_out;
            rollbacks_ = s.rollbacks;
            resim_ = s.resimulated;
            return;
        }
        const std::uint64_t dt = now_ms - last_ms_;
        if (dt < 1000) return;
        const double secs = static_cast<double>(dt) / 1000.0;
        s.bytes_in_per_s = static_cast<double>(bytes_in - in_) / secs;
        s.bytes_out_per_s = static_cast<double>(bytes_out - out_) / secs;
        s.rollbacks_per_s = static_cast<double>(s.rollbacks - rollbacks_) / secs;
        s.resimulated_per_s = static_cast<double>(s.resimulated - resim_) / secs;
        in_ = bytes_in;
        out_ = bytes_out;
        rollbacks_ = s.rollbacks;
        resim_ = s.resimulated;
        last_ms_ = now_ms;
    }

private:
    std::uint64_t last_ms_ = 0, in_ = 0, out_ = 0, rollbacks_ = 0, resim_ = 0;
};

} // namespace retcon::internal

#endif
