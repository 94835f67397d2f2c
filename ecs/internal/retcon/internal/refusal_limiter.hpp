#ifndef RETCON_INTERNAL_REFUSAL_LIMITER_HPP
#define RETCON_INTERNAL_REFUSAL_LIMITER_HPP

#include <cstdint>
#include <optional>
#include <string>

#include <retcon/internal/printable.hpp>

namespace retcon::internal {

/**
 * @brief Connections refused before their handshake, reported at most once a second: a flood
 * of half-open connections must not become a flood of events or log lines (docs/net.md,
 * "Security model"). The server session's connection_refused events and the match host's
 * refusal log both go through it.
 * The refusals in between are counted; the next report says how many, and a burst followed by
 * quiet is reported by `flush` a second after the last report.
 */
class refusal_limiter {
public:
    /// @brief One report: its log text and how many refusals it covers.
    struct report {
        std::string text;
        std::uint64_t count = 0;
    };

    /// @brief The connection from @p address (may be empty) was refused at @p now_ms because
    /// @p why. Returns the report to make now (this refusal and those counted since the last
    /// report), or nothing when it is only counted.
    std::optional<report> refused(std::uint64_t now_ms, const std::string &address, const std::string &why) {
        if (reported_ && now_ms - reported_at_ < 1000) {
            ++suppressed_;
            return std::nullopt;
        }
        std::string text = (address.empty() ? std::string{} : printable(address) + ": ") + why;
        if (suppressed_ != 0) text += " (and " + std::to_string(suppressed_) + " more refused since the last report)";
        reported_ = true;
        reported_at_ = now_ms;
        const std::uint64_t count = suppressed_ + 1u;
        suppressed_ = 0;
        return report{std::move(text), count};
    }

    /// @brief At @p now_ms, the report of refusals counted since the last report once a second
    /// has passed since it, or nothing.
    std::optional<report> flush(std::uint64_t now_ms) {
        if (suppressed_ == 0 || now_ms - reported_at_ < 1000) return std::nullopt;
        report r{std::to_string(suppressed_) + " more connections refused since the last report", suppressed_};
        reported_at_ = now_ms;
        suppressed_ = 0;
        return r;
    }

    /// @brief Refusals counted and not reported yet.
    [[nodiscard]] std::uint64_t suppressed() const noexcept { return suppressed_; }

private:
    std::uint64_t reported_at_ = 0;
    bool reported_ = false;
    std::uint64_t suppressed_ = 0;
};

} // namespace retcon::internal

#endif
