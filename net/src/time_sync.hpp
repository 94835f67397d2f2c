#ifndef RETCON_NET_SRC_TIME_SYNC_HPP
#define RETCON_NET_SRC_TIME_SYNC_HPP

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace retcon::internal {

/// @brief The server's half of time sync: how early each player's inputs arrive before their
/// frame is due. Keeps the last `samples` arrival margins and reports a low percentile of them
/// (docs/net.md, "Time sync").
class arrival_margins {
public:
    /// @brief Margins remembered (the oldest is replaced).
    static constexpr std::size_t samples = 30;

    /// @brief Records that an input arrived @p margin_ms before its frame was due (negative:
    /// late), clamped to ±30000 ms.
    void add(double margin_ms) noexcept {
        margins_[next_] = static_cast<std::int16_t>(std::clamp(margin_ms, -30000.0, 30000.0));
        next_ = (next_ + 1) % samples;
        count_ = std::min(count_ + 1, samples);
    }

    /// @brief The ~10th percentile of the remembered margins (most inputs arrive at least this
    /// early); 0 before the first sample.
    [[nodiscard]] std::int16_t low_percentile() const noexcept {
        if (count_ == 0) return 0;
        std::array<std::int16_t, samples> m = margins_;
        std::sort(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(count_));
        return m[count_ / 10];
    }

    /// @brief Margins recorded so far, at most `samples`.
    [[nodiscard]] std::size_t size() const noexcept { return count_; }

private:
    std::array<std::int16_t, samples> margins_{};
    std::size_t count_ = 0, next_ = 0;
};

/// @brief The client's half of time sync: when its next tick is due, steered by the arrival
/// margin the server reports so that inputs arrive a little before the server needs them
/// (docs/net.md, "Time sync").
///
/// The controller aims at a margin of 1.25 periods plus the measured jitter (one lost packet is
/// covered: the next packet, a period later, repeats the input). Inside a dead band of ±0.25
/// periods it runs at the nominal rate; outside it stretches or shortens each tick by up to 3%;
/// an error beyond 3 periods is corrected at once by shifting the next tick time, followed by a
/// cooldown of one round trip plus 600 ms while the effect travels to the server and back.
class time_sync {
public:
    /// @brief Ticks of @p period_ms (1000 / tick rate).
    void set_period(double period_ms) noexcept { period_ = period_ms; }
    [[nodiscard]] double period() const noexcept { return period_; }

    /// @brief After loading a snapshot at @p now_ms: the first tick is due @p lead_ms ago (the
    /// client starts ahead of the server), and margins are ignored for 300 ms.
    void start(std::uint64_t now_ms, double lead_ms) noexcept {
        next_tick_ = static_cast<double>(now_ms) - lead_ms;
        cooldown_until_ = now_ms + 300;
    }

    /// @brief True once the next tick is due at @p now_ms.
    [[nodiscard]] bool due(std::uint64_t now_ms) const noexcept { return static_cast<double>(now_ms) >= next_tick_; }

    /// @brief A tick happened: the next one is due one (adjusted) period later.
    void ticked() noexcept { next_tick_ += period_ * (1.0 + rate_); }

    /// @brief The server reported @p margin_ms for our inputs at @p now_ms; @p rtt_ms and
    /// @p jitter_ms are the smoothed round trip and its jitter.
    void on_margin(std::uint64_t now_ms, std::int16_t margin_ms, double rtt_ms, double jitter_ms) noexcept {
        if (now_ms < cooldown_until_) return;
        const double target = period_ * 1.25 + jitter_ms;
        const double err = static_cast<double>(margin_ms) - target; // > 0: inputs too early: we run too far ahead
        if (std::fabs(err) > 3.0 * period_) {
            next_tick_ += err; // jump once: wait (err > 0) or catch up (err < 0)
            rate_ = 0;
            cooldown_until_ = now_ms + static_cast<std::uint64_t>(rtt_ms) + 600u;
            return;
        }
        const double deadband = period_ * 0.25;
        if (std::fabs(err) <= deadband) {
            rate_ = 0;
            return;
        }
        rate_ = std::clamp((err - (err > 0 ? deadband : -deadband)) * 0.003, -0.03, 0.03);
    }

    /// @brief When the next tick is due (ms on the session's clock).
    [[nodiscard]] double next_tick() const noexcept { return next_tick_; }
    /// @brief The current rate adjustment: each tick lasts period × (1 + rate).
    [[nodiscard]] double rate() const noexcept { return rate_; }

private:
    double period_ = 1000.0 / 60.0;
    double next_tick_ = 0;
    double rate_ = 0;
    std::uint64_t cooldown_until_ = 0;
};

} // namespace retcon::internal

#endif
