#ifndef RETCON_TESTS_RNG_HPP
#define RETCON_TESTS_RNG_HPP

// The seeded random numbers of the tests and the benchmarks: splitmix64, the same sequence on
// every platform and compiler, so a seeded world or match is the same everywhere.
#include <retcon/ecs/entity.hpp>
#include <retcon/ecs/world.hpp>

#include <cstdint>

namespace retcon::test {

/// @brief splitmix64: small, fast, the same on every platform.
class rng {
public:
    explicit rng(std::uint64_t seed) noexcept : s_{seed} {}
    /// @brief The next 64 random bits.
    std::uint64_t next() noexcept {
        std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /// @brief Uniform-ish in [0, n), n > 0.
    std::uint32_t below(std::uint32_t n) noexcept { return static_cast<std::uint32_t>(next() % n); }
    /// @brief True with probability @p percent / 100.
    bool chance(std::uint32_t percent) noexcept { return below(100) < percent; }
    /// @brief A multiple of 1/16 in [-8, 8): exact in float, so no rounding question arises.
    float coord() noexcept { return static_cast<float>(static_cast<int>(below(256)) - 128) / 16.0f; }
    /// @brief Uniform in [0, 1), 24 bits.
    float unit() noexcept { return static_cast<float>(next() >> 40) * 0x1.0p-24f; }

private:
    std::uint64_t s_;
};

/// @brief Mixes two numbers into a seed.
inline std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) noexcept {
    rng r{a ^ (b * 0x9e3779b97f4a7c15ull)};
    return r.next();
}

/// @brief A live entity chosen by @p r from the world's state: the first live one at or after a
/// random slot of the entity table, wrapping around (null if none is alive).
inline entity pick_live(const world &w, rng &r) {
    const auto table = w.entity_table();
    if (w.alive() == 0 || table.empty()) return null_entity;
    const auto n = static_cast<std::uint32_t>(table.size());
    std::uint32_t idx = r.below(n);
    for (std::uint32_t k = 0; k < n; ++k, idx = idx + 1 == n ? 0 : idx + 1)
        if (to_index(table[idx]) == idx) return table[idx];
    return null_entity;
}

} // namespace retcon::test

#endif
