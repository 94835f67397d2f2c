#ifndef RETCON_HOST_TOKEN_BUCKET_HPP
#define RETCON_HOST_TOKEN_BUCKET_HPP

#include <algorithm>
#include <cstdint>

namespace retcon::internal {

/**
 * @brief At most `burst` events at once and `per_second` a second on average: what the Agones
 * client spends on a sidecar that streams or changes faster than any real GameServer does
 * (docs/hosting.md, "Agones"). Time is passed in (microseconds), never read here.
 */
class token_bucket {
public:
    token_bucket(std::uint32_t per_second, std::uint32_t burst) noexcept
        : per_second_{per_second == 0 ? 1 : per_second}, burst_{burst == 0 ? 1 : burst}, tokens_us_{full()} {}

    /// @brief Takes one event's token at @p now_us if there is one.
    bool take(std::uint64_t now_us) noexcept {
        refill(now_us);
        if (tokens_us_ < one()) return false;
        tokens_us_ -= one();
        return true;
    }

    /// @brief Microseconds from @p now_us until take() would succeed (0: now).
    [[nodiscard]] std::uint64_t wait_us(std::uint64_t now_us) noexcept {
        refill(now_us);
        return tokens_us_ >= one() ? 0 : one() - tokens_us_;
    }

private:
    // Tokens are kept as microseconds of refill time: one token is 1e6 / per_second of them.
    [[nodiscard]] std::uint64_t one() const noexcept { return 1000000u / per_second_; }
    [[nodiscard]] std::uint64_t full() const noexcept { return one() * burst_; }
    void refill(std::uint64_t now_us) noexcept {
        if (last_us_ != 0 && now_us > last_us_) tokens_us_ = std::min(full(), tokens_us_ + (now_us - last_us_));
        last_us_ = now_us;
    }

    std::uint32_t per_second_, burst_;
    std::uint64_t tokens_us_;
    std::uint64_t last_us_ = 0;
};

} // namespace retcon::internal

#endif
