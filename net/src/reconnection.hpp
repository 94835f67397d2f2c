#ifndef RETCON_NET_SRC_RECONNECTION_HPP
#define RETCON_NET_SRC_RECONNECTION_HPP

// A client's automatic reconnection: which lost connections it retries, how many attempts, and
// when each starts (docs/net.md, "Reconnecting"). Time is the session's injected clock.
#include <retcon/net/client_session.hpp>
#include <retcon/net/events.hpp>

#include <algorithm>
#include <cstdint>

namespace retcon::internal {

class reconnection {
public:
    explicit reconnection(const reconnect_policy &policy) noexcept : policy_{policy} {}

    /// True for the causes worth another attempt: the link failed. A refusal, the match's end,
    /// a kick for a violation, a bad snapshot or the player leaving would end the next
    /// connection the same way.
    [[nodiscard]] static bool retryable(disconnect_cause cause) noexcept {
        return cause == disconnect_cause::closed || cause == disconnect_cause::timed_out ||
               cause == disconnect_cause::connect_failed;
    }

    /// The wait before attempt @p n (from 1), counted from the loss or the failed attempt before
    /// it: none before the first, then backoff_ms doubling up to max_backoff_ms.
    [[nodiscard]] std::uint64_t delay_before(std::uint32_t n) const noexcept {
        if (n <= 1) return 0;
        const std::uint32_t doublings = std::min<std::uint32_t>(n - 2u, 32u); // 2^32 * u32 fits in u64
        const std::uint64_t wait = std::uint64_t{policy_.backoff_ms} << doublings;
        return std::min<std::uint64_t>(wait, std::max(policy_.max_backoff_ms, policy_.backoff_ms));
    }

    /// A connection, or an attempt, ended at @p now for @p cause. True when another attempt is
    /// scheduled (due()); false when the session is over.
    bool lost(std::uint64_t now, disconnect_cause cause) noexcept {
        scheduled_ = false;
        if (!retryable(cause) || made_ >= policy_.attempts) return false;
        due_at_ = now + delay_before(made_ + 1u);
        scheduled_ = true;
        return true;
    }

    /// True when the scheduled attempt should start at @p now.
    [[nodiscard]] bool due(std::uint64_t now) const noexcept { return scheduled_ && now >= due_at_; }
    /// An attempt is scheduled and has not started.
    [[nodiscard]] bool waiting() const noexcept { return scheduled_; }
    /// Starts the scheduled attempt; returns its number (from 1).
    std::uint32_t start() noexcept {
        scheduled_ = false;
        return ++made_;
    }
    /// The reconnection is over (back in the match, or the session ended): a later loss has
    /// every attempt again.
    void cancel() noexcept {
        scheduled_ = false;
        made_ = 0;
    }
    /// Between a loss and reconnected or the final disconnected.
    [[nodiscard]] bool active() const noexcept { return scheduled_ || made_ > 0; }
    /// Attempts started since the loss.
    [[nodiscard]] std::uint32_t made() const noexcept { return made_; }
    [[nodiscard]] std::uint32_t attempts() const noexcept { return policy_.attempts; }

private:
    reconnect_policy policy_;
    std::uint64_t due_at_ = 0;
    std::uint32_t made_ = 0;
    bool scheduled_ = false;
};

} // namespace retcon::internal

#endif
