#ifndef RETCON_DEMO_FIXED_HPP
#define RETCON_DEMO_FIXED_HPP

// Q16.16 fixed-point arithmetic: the demo's simulation maths, identical on every compiler and
// platform (integers only; the sine table is data, not computed at run time).
#include <array>
#include <cstdint>

namespace retcon::demo {

/// @brief A Q16.16 fixed-point number (16 integer bits, 16 fraction bits) in an int32.
struct fixed {
    std::int32_t raw;

    static constexpr fixed from_raw(std::int32_t r) noexcept { return fixed{r}; }
    static constexpr fixed from_int(std::int32_t i) noexcept {
        return fixed{static_cast<std::int32_t>(static_cast<std::uint32_t>(i) << 16)};
    }
    /// @brief n / d, exactly rounded toward zero.
    static constexpr fixed ratio(std::int32_t n, std::int32_t d) noexcept {
        return fixed{static_cast<std::int32_t>((static_cast<std::int64_t>(n) * 65536) / d)};
    }
    [[nodiscard]] constexpr std::int32_t to_int() const noexcept { return raw >> 16; } // floor

    friend constexpr fixed operator+(fixed a, fixed b) noexcept {
        return fixed{static_cast<std::int32_t>(static_cast<std::uint32_t>(a.raw) + static_cast<std::uint32_t>(b.raw))};
    }
    friend constexpr fixed operator-(fixed a, fixed b) noexcept {
        return fixed{static_cast<std::int32_t>(static_cast<std::uint32_t>(a.raw) - static_cast<std::uint32_t>(b.raw))};
    }
    friend constexpr fixed operator-(fixed a) noexcept { return fixed{0} - a; }
    friend constexpr fixed operator*(fixed a, fixed b) noexcept {
        return fixed{static_cast<std::int32_t>((static_cast<std::int64_t>(a.raw) * b.raw) >> 16)};
    }
    /// @brief Division; b must not be zero.
    friend constexpr fixed operator/(fixed a, fixed b) noexcept {
        return fixed{static_cast<std::int32_t>((static_cast<std::int64_t>(a.raw) * 65536) / b.raw)};
    }
    constexpr fixed &operator+=(fixed b) noexcept { return *this = *this + b; }
    constexpr fixed &operator-=(fixed b) noexcept { return *this = *this - b; }
    constexpr fixed &operator*=(fixed b) noexcept { return *this = *this * b; }
    friend constexpr bool operator==(fixed a, fixed b) noexcept = default;
    friend constexpr auto operator<=>(fixed a, fixed b) noexcept { return a.raw <=> b.raw; }
};

/// @brief Squared length in fixed units, computed in 64 bits (no overflow for arena sizes).
constexpr std::int64_t length_sq_raw(fixed dx, fixed dy) noexcept {
    return static_cast<std::int64_t>(dx.raw) * dx.raw + static_cast<std::int64_t>(dy.raw) * dy.raw;
}

/// @brief sin(2*pi*i/256) in Q16.16 for i in [0, 256).
inline constexpr std::array<std::int32_t, 256> sine_table{
    0,      1608,   3216,   4821,   6424,   8022,   9616,   11204,  12785,  14359,  15924,  17479,  19024,  20557,
    22078,  23586,  25080,  26558,  28020,  29466,  30893,  32303,  33692,  35062,  36410,  37736,  39040,  40320,
    41576,  42806,  44011,  45190,  46341,  47464,  48559,  49624,  50660,  51665,  52639,  53581,  54491,  55368,
    56212,  57022,  57798,  58538,  59244,  59914,  60547,  61145,  61705,  62228,  62714,  63162,  63572,  63944,
    64277,  64571,  64827,  65043,  65220,  65358,  65457,  65516,  65536,  65516,  65457,  65358,  65220,  65043,
    64827,  64571,  64277,  63944,  63572,  63162,  62714,  62228,  61705,  61145,  60547,  59914,  59244,  58538,
    57798,  57022,  56212,  55368,  54491,  53581,  52639,  51665,  50660,  49624,  48559,  47464,  46341,  45190,
    44011,  42806,  41576,  40320,  39040,  37736,  36410,  35062,  33692,  32303,  30893,  29466,  28020,  26558,
    25080,  23586,  22078,  20557,  19024,  17479,  15924,  14359,  12785,  11204,  9616,   8022,   6424,   4821,
    3216,   1608,   0,      -1608,  -3216,  -4821,  -6424,  -8022,  -9616,  -11204, -12785, -14359, -15924, -17479,
    -19024, -20557, -22078, -23586, -25080, -26558, -28020, -29466, -30893, -32303, -33692, -35062, -36410, -37736,
    -39040, -40320, -41576, -42806, -44011, -45190, -46341, -47464, -48559, -49624, -50660, -51665, -52639, -53581,
    -54491, -55368, -56212, -57022, -57798, -58538, -59244, -59914, -60547, -61145, -61705, -62228, -62714, -63162,
    -63572, -63944, -64277, -64571, -64827, -65043, -65220, -65358, -65457, -65516, -65536, -65516, -65457, -65358,
    -65220, -65043, -64827, -64571, -64277, -63944, -63572, -63162, -62714, -62228, -61705, -61145, -60547, -59914,
    -59244, -58538, -57798, -57022, -56212, -55368, -54491, -53581, -52639, -51665, -50660, -49624, -48559, -47464,
    -46341, -45190, -44011, -42806, -41576, -40320, -39040, -37736, -36410, -35062, -33692, -32303, -30893, -29466,
    -28020, -26558, -25080, -23586, -22078, -20557, -19024, -17479, -15924, -14359, -12785, -11204, -9616,  -8022,
    -6424,  -4821,  -3216,  -1608,
};

/// @brief Sine of an angle given in 1/256 turns.
constexpr fixed sin256(std::uint8_t angle) noexcept { return fixed{sine_table[angle]}; }
/// @brief Cosine of an angle given in 1/256 turns.
constexpr fixed cos256(std::uint8_t angle) noexcept {
    return fixed{sine_table[static_cast<std::uint8_t>(angle + 64u)]};
}

/// @brief Wraps @p v into [0, size) (the arena is a torus).
constexpr fixed wrap(fixed v, fixed size) noexcept {
    while (v.raw < 0) v += size;
    while (v.raw >= size.raw) v -= size;
    return v;
}

} // namespace retcon::demo

#endif
