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
        // The (count / 10)-th smallest: a selection, not a sort (the server asks every tick).
        std::array<std::int16_t, samples> m = margins_;
        const auto kth = m.begin() + static_cast<std::ptrdiff_t>(count_ / 10);
        std::nth_element(m.begin(), kth, m.begin() + static_cast<std::ptrdiff_t>(count_));
        return *kth;
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
        rate_ = 0; // a rate from before the snapshot would stretch or shorten the cooldown's ticks
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

/// @brief The client's round trip to the server, from the echoed client clock in each confirmed
/// message minus the time the server held it, smoothed (factor 0.1), with its jitter
/// (docs/net.md, "Time sync").
class round_trip {
public:
    /// @brief Adds a sample of @p ms; false (and ignored) unless it is in [0, 10000).
    bool add(double ms) noexcept {
        if (!(ms >= 0 && ms < 10000)) return false;
        if (!known_) {
            rtt_ = ms;
            known_ = true;
        } else {
            jitter_ += 0.1 * (std::fabs(ms - rtt_) - jitter_);
            rtt_ += 0.1 * (ms - rtt_);
        }
        return true;
    }
    /// @brief True once a sample was accepted.
    [[nodiscard]] bool known() const noexcept { return known_; }
    [[nodiscard]] double rtt_ms() const noexcept { return rtt_; }
    [[nodiscard]] double jitter_ms() const noexcept { return jitter_; }

private:
    double rtt_ = 0, jitter_ = 0;
    bool known_ = false;
};

/// @brief The client's input delay when it adapts: it follows half the round trip, one frame a
/// second at most, between the match's input_delay and max_input_delay (docs/net.md, "Input
/// delay"). More delay means shallower rollbacks for the same lag.
class input_delay {
public:
    /// @brief Starts at @p low frames, adapting within [@p low, @p high].
    void reset(std::uint8_t low, std::uint8_t high) noexcept {
        low_ = low;
        high_ = high;
        frames_ = low;
    }
    /// @brief The current delay in frames.
    [[nodiscard]] std::uint8_t frames() const noexcept { return frames_; }
    /// @brief True if the range lets the delay move at all.
    [[nodiscard]] bool adapts() const noexcept { return high_ > low_; }

    /// @brief At @p now_ms, moves the delay one frame towards rtt / 2 / period (rounded, within
    /// the range) if the last move was at least a second ago.
    void adapt(std::uint64_t now_ms, double rtt_ms, double period_ms) noexcept {
        if (!adapts() || now_ms - last_change_ < 1000) return;
        const double want = std::round(rtt_ms / 2.0 / period_ms);
        const auto target =
            static_cast<std::uint8_t>(std::clamp(want, static_cast<double>(low_), static_cast<double>(high_)));
        if (target == frames_) return;
        frames_ = static_cast<std::uint8_t>(target > frames_ ? frames_ + 1 : frames_ - 1);
        last_change_ = now_ms;
    }

private:
    std::uint8_t low_ = 0, high_ = 0, frames_ = 0;
    std::uint64_t last_change_ = 0;
};

} // namespace retcon::internal

#endif
