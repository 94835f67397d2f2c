#ifndef RETCON_HOST_ROOM_LEDGER_HPP
#define RETCON_HOST_ROOM_LEDGER_HPP

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>

namespace retcon {

/**
 * @brief Pairs the allocations an orchestrator sees with the matches the host opens, and says
 * when to give a room back (decrement the fleet's rooms counter: docs/hosting.md, "High
 * density").
 *
 * The allocator increments the counter once per allocation; the server gives back exactly one
 * room per allocation it saw, never more: when the match that used it ends, or when no match
 * used it within the allocation timeout (a matchmaker's no-show). Allocations and openings may
 * be seen in either order (the watch stream can lag the players). A match opened with no
 * allocation within the timeout was not counted by the allocator and gives nothing back.
 * Every method returns the rooms to give back now. Times are the caller's (µs).
 */
class room_ledger {
public:
    explicit room_ledger(std::uint64_t allocation_timeout_us) : timeout_us_{allocation_timeout_us} {}

    /// @brief An allocation was seen.
    int allocated(std::uint64_t now_us) {
        ++allocations_;
        while (!unpaired_.empty()) { // a match that opened before its allocation showed
            const auto u = unpaired_.front();
            unpaired_.pop_front();
            if (now_us - u.at_us > timeout_us_) continue;
            const auto it = running_.find(u.match_id);
            if (it == running_.end()) return give_back(1); // it has already ended
            it->second = true;
            return 0;
        }
        pending_.push_back(now_us);
        return 0;
    }

    /// @brief A match opened.
    int opened(const std::string &match_id, std::uint64_t now_us) {
        if (!pending_.empty()) {
            pending_.pop_front();
            running_[match_id] = true;
        } else {
            running_[match_id] = false;
            unpaired_.push_back({match_id, now_us});
        }
        return 0;
    }

    /// @brief A match ended.
    int ended(const std::string &match_id) {
        const auto it = running_.find(match_id);
        if (it == running_.end()) return 0;
        const bool paired = it->second;
        running_.erase(it);
        return paired ? give_back(1) : 0;
    }

    /// @brief Allocations no match used within the timeout are given back.
    int expire(std::uint64_t now_us) {
        int n = 0;
        while (!pending_.empty() && now_us - pending_.front() > timeout_us_) {
            pending_.pop_front();
            ++n;
        }
        while (!unpaired_.empty() && now_us - unpaired_.front().at_us > timeout_us_) unpaired_.pop_front();
        return give_back(n);
    }

    /// @brief Allocations seen and not yet given back.
    [[nodiscard]] std::uint64_t outstanding() const noexcept { return allocations_ - given_back_; }

private:
    struct unpaired_match {
        std::string match_id;
        std::uint64_t at_us = 0;
    };
    int give_back(int n) {
        given_back_ += static_cast<std::uint64_t>(n);
        return n;
    }
    std::uint64_t timeout_us_;
    std::uint64_t allocations_ = 0, given_back_ = 0;
    std::deque<std::uint64_t> pending_;             // allocations no match used yet
    std::deque<unpaired_match> unpaired_;           // matches opened before any allocation
    std::unordered_map<std::string, bool> running_; // running matches: paired with an allocation?
};

} // namespace retcon

#endif
