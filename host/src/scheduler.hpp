#ifndef RETCON_HOST_SCHEDULER_HPP
#define RETCON_HOST_SCHEDULER_HPP

#include <retcon/ecs/frame.hpp>
#include <retcon/host/host_metrics.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace retcon {

/**
 * @brief One hosted match's frame clock: the one clock of the match (docs/hosting.md, "Inside
 * the host").
 *
 * The scheduler chooses its phase of the tick period to the microsecond: the whole millisecond
 * `origin_ms` plus `offset_us` (under a millisecond). The host starts the session's clock at
 * `origin_ms`: the session is first polled then (session_time_ms), so the session's own
 * deadlines (should_tick, the input margins it reports to clients) and these are one schedule,
 * the session's read in whole milliseconds and never after the scheduler's: a session is always
 * due when the host ticks it.
 */
struct match_clock {
    std::uint64_t origin_ms = 0; ///< the session's clock starts here
    std::uint32_t offset_us = 0; ///< `first_frame` is due this long after the origin (< 1000)
    frame_t first_frame = 0;     ///< the session's frame at the origin
    double period_us = 0;        ///< one frame
    std::size_t phase = 0;       ///< which of the scheduler's phase slots
    bool session_started = false;

    /// @brief The deadline of frame @p f (µs, steady clock).
    [[nodiscard]] std::uint64_t deadline_us(frame_t f) const noexcept;
    /// @brief True once the clock has reached its origin: the session may be polled.
    [[nodiscard]] bool running(std::uint64_t now_us) const noexcept { return now_us >= origin_ms * 1000u; }
    /// @brief The time to give the session's poll at @p now_us: the origin itself the first
    /// time (which starts the session's clock there), @p now_us after.
    [[nodiscard]] std::uint64_t session_time_ms(std::uint64_t now_us) noexcept;
};

/**
 * @brief The host's scheduling: each match's frame clock and phase, lateness, catch-up
 * (docs/hosting.md, "Scheduling").
 *
 * Matches opened together would all tick on the same instant; each instead takes the least
 * used of the slots of about `phase_slot_us` its tick period holds (166 at 60 Hz, at most
 * `max_phases`), trying them in an order that halves the gaps (0, ½, ¼, ¾ ... of the period),
 * so that a few matches spread over the whole period and 160 never share a slot. A tick's
 * lateness is measured from its deadline; late frames are ticked back to back, at most
 * `max_catch_up` a loop pass.
 */
class frame_scheduler {
public:
    static constexpr std::uint32_t phase_slot_us = 100; ///< the width of a phase slot, at least
    static constexpr std::size_t max_phases = 256;      ///< phase slots of a tick period, at most
    static constexpr int max_catch_up = 4;              ///< late frames of one match ticked in one loop pass
    static constexpr std::uint64_t late_us = 2'000;     ///< a tick this late counts in match_metrics::late_ticks

    /// @brief Phases are measured from @p epoch_us (the host's start).
    explicit frame_scheduler(std::uint64_t epoch_us = 0) noexcept : epoch_us_{epoch_us} {}

    /// @brief A clock for a match opened at @p now_us whose session is at @p first_frame: the
    /// least used phase slot, its first deadline the first instant of that slot at or after
    /// @p now_us (to the microsecond), its origin that instant's whole millisecond.
    [[nodiscard]] match_clock assign(std::uint64_t now_us, std::uint32_t tick_hz, frame_t first_frame) noexcept;
    /// @brief The match of @p c no longer ticks: its phase is free again.
    void release(const match_clock &c) noexcept;
    /// @brief The phase slots of a tick period at @p tick_hz.
    [[nodiscard]] static std::size_t phases(std::uint32_t tick_hz) noexcept;
    /// @brief Matches ticking in phase slot @p phase.
    [[nodiscard]] std::uint32_t load(std::size_t phase) const noexcept { return load_[phase]; }

    /// @brief True when frame @p f of @p c is due at @p now_us.
    [[nodiscard]] static bool due(const match_clock &c, frame_t f, std::uint64_t now_us) noexcept {
        return c.deadline_us(f) <= now_us;
    }
    /// @brief Records the lateness of frame @p f's tick that starts at @p started_us in
    /// @p m and @p all; returns it (µs).
    static std::uint64_t record_tick(const match_clock &c, frame_t f, std::uint64_t started_us, match_metrics &m,
                                     lateness_histogram &all) noexcept;

private:
    std::uint64_t epoch_us_;
    std::array<std::uint32_t, max_phases> load_{};
};

} // namespace retcon

#endif
