#ifndef RETCON_HOST_DRAIN_HPP
#define RETCON_HOST_DRAIN_HPP

#include <atomic>
#include <cstdint>

namespace retcon {

/**
 * @brief The host's drain (docs/hosting.md, "Drain"): requests come from any thread or a signal
 * handler; the ticking thread takes them in once in a while. The first request stops admitting
 * (running matches may finish within the grace); a second forces every match to end now.
 */
class drain_control {
public:
    /// @brief Async-signal-safe, any thread.
    void request() noexcept { requests_.fetch_add(1, std::memory_order_relaxed); }
    /// @brief Requests made so far (any thread).
    [[nodiscard]] int requests() const noexcept { return requests_.load(std::memory_order_relaxed); }

    /// @brief What taking the requests in changed.
    struct change {
        bool started = false; ///< the drain began now
        bool forced = false;  ///< the ending was forced now
    };
    /// @brief The ticking thread takes the requests made so far in, at @p now_us.
    change take_requests(std::uint64_t now_us) noexcept {
        change c;
        const int r = requests();
        if (r <= seen_) return c;
        if (seen_ == 0) {
            started_us_ = now_us;
            c.started = true;
        }
        c.forced = r >= 2 && seen_ < 2;
        seen_ = r;
        return c;
    }
    /// @brief Draining: nobody new is admitted (the ticking thread's view).
    [[nodiscard]] bool draining() const noexcept { return seen_ >= 1; }
    /// @brief Every match must end now.
    [[nodiscard]] bool forced() const noexcept { return seen_ >= 2; }
    /// @brief Draining for @p grace_ms or longer at @p now_us.
    [[nodiscard]] bool grace_over(std::uint64_t now_us, std::uint32_t grace_ms) const noexcept {
        return draining() && now_us - started_us_ >= grace_ms * 1000ull;
    }

private:
    std::atomic<int> requests_{0};
    int seen_ = 0;
    std::uint64_t started_us_ = 0;
};

} // namespace retcon

#endif
