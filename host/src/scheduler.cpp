#include "scheduler.hpp"

#include <algorithm>
#include <cmath>

namespace retcon {

std::uint64_t match_clock::deadline_us(frame_t f) const noexcept {
    return origin_ms * 1000u + offset_us +
           static_cast<std::uint64_t>(std::llround(static_cast<double>(f - first_frame) * period_us));
}

std::uint64_t match_clock::session_time_ms(std::uint64_t now_us) noexcept {
    if (!session_started) {
        session_started = true;
        return std::min(origin_ms, now_us / 1000u); // earlier only for a match ending before its first frame
    }
    return std::max(origin_ms, now_us / 1000u);
}

namespace {
/// The 8 bits of @p i in reverse order: 0, 128, 64, 192, 32, ... each next slot halves a gap.
constexpr std::size_t bit_reversed(std::size_t i) noexcept {
    std::size_t r = 0;
    for (int b = 0; b < 8; ++b) r |= ((i >> b) & 1u) << (7 - b);
    return r;
}
static_assert(frame_scheduler::max_phases == 256, "bit_reversed spans 8 bits");
} // namespace

std::size_t frame_scheduler::phases(std::uint32_t tick_hz) noexcept {
    const double period_us = 1e6 / std::max<std::uint32_t>(tick_hz, 1);
    return std::clamp<std::size_t>(static_cast<std::size_t>(period_us / phase_slot_us), 1, max_phases);
}

match_clock frame_scheduler::assign(std::uint64_t now_us, std::uint32_t tick_hz, frame_t first_frame) noexcept {
    match_clock c;
    c.first_frame = first_frame;
    c.period_us = 1e6 / std::max<std::uint32_t>(tick_hz, 1);
    const std::size_t n = phases(tick_hz);
    c.phase = 0;
    for (std::size_t i = 1; i < max_phases; ++i) {                 // the first least used slot, in halving order
        const std::size_t slot = bit_reversed(i) * n / max_phases; // every slot appears (n <= 256)
        if (load_[slot] < load_[c.phase]) c.phase = slot;
    }
    ++load_[c.phase];
    const double slice = c.period_us / static_cast<double>(n);
    const double in_period = std::fmod(static_cast<double>(now_us - std::min(now_us, epoch_us_)), c.period_us);
    double wait = static_cast<double>(c.phase) * slice - in_period;
    if (wait < 0) wait += c.period_us;
    const auto first_us = now_us + static_cast<std::uint64_t>(wait);
    c.origin_ms = first_us / 1000u;
    c.offset_us = static_cast<std::uint32_t>(first_us % 1000u);
    return c;
}

void frame_scheduler::release(const match_clock &c) noexcept {
    if (c.phase < load_.size() && load_[c.phase] > 0) --load_[c.phase];
}

std::uint64_t frame_scheduler::record_tick(const match_clock &c, frame_t f, std::uint64_t started_us, match_metrics &m,
                                           lateness_histogram &all) noexcept {
    const auto deadline = c.deadline_us(f);
    const std::uint64_t late = started_us > deadline ? started_us - deadline : 0;
    all.record(late);
    ++m.ticks;
    if (late >= late_us) ++m.late_ticks;
    m.max_lateness_us = std::max(m.max_lateness_us, late);
    return late;
}

} // namespace retcon
