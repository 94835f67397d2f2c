#ifndef RETCON_ECS_FIXED_STRING_HPP
#define RETCON_ECS_FIXED_STRING_HPP

#include <cstddef>
#include <string_view>

#include "type_info.hpp"

namespace retcon {

/**
 * @brief A string of at most N characters stored inline: the component-safe `std::string`.
 *
 * Trivially copyable and padding-free; unused characters are always zero, so two equal strings
 * are equal byte for byte (and hash the same). No terminator is stored when the string is full.
 */
template<std::size_t N>
class fixed_string {
    static_assert(N > 0, "retcon: fixed_string<0> holds nothing");

public:
    /// @brief Empty string.
    constexpr fixed_string() noexcept = default;

    /// @brief Copies @p text; a text longer than N characters is API misuse (reported).
    constexpr fixed_string(std::string_view text) { assign(text); } // NOLINT(google-explicit-constructor)

    /// @brief Copies @p text; reports misuse if it does not fit or holds a '\0' (the string is
    /// left unchanged).
    constexpr void assign(std::string_view text) {
        if (!try_assign(text))
            internal::misuse("fixed_string<%zu>: text of %zu characters does not fit or contains a NUL character", N,
                             text.size());
    }

    /// @brief Copies @p text if it fits; returns false (and changes nothing) otherwise. Text with
    /// an embedded '\0' is refused too: the bytes after it would not be zero, and two strings
    /// that compare equal would differ byte for byte (and hash differently).
    constexpr bool try_assign(std::string_view text) noexcept {
        if (text.size() > N || text.find('\0') != std::string_view::npos) return false;
        for (std::size_t i = 0; i < N; ++i) chars[i] = i < text.size() ? text[i] : '\0';
        return true;
    }

    /// @brief Number of characters (up to the first zero).
    [[nodiscard]] constexpr std::size_t size() const noexcept {
        std::size_t n = 0;
        while (n < N && chars[n] != '\0') ++n;
        return n;
    }
    [[nodiscard]] constexpr bool empty() const noexcept { return chars[0] == '\0'; }
    [[nodiscard]] static constexpr std::size_t capacity() noexcept { return N; }
    [[nodiscard]] constexpr std::string_view view() const noexcept { return {chars, size()}; }
    constexpr operator std::string_view() const noexcept { return view(); } // NOLINT(google-explicit-constructor)

    friend constexpr bool operator==(const fixed_string &a, const fixed_string &b) noexcept {
        return a.view() == b.view();
    }
    friend constexpr bool operator==(const fixed_string &a, std::string_view b) noexcept { return a.view() == b; }

    /// @brief The characters, public so the type stays an aggregate-like standard-layout struct.
    char chars[N]{};
};

namespace internal {
template<std::size_t N>
struct is_fixed_text<fixed_string<N>> : std::true_type {};
} // namespace internal

/// Registration of fixed_string for use as a field (found by argument-dependent lookup).
template<std::size_t N>
consteval auto retcon_describe(internal::type_tag<fixed_string<N>>) {
    return internal::describe<fixed_string<N>>("fixed_string", internal::make_field<char[N]>("chars", 0));
}

} // namespace retcon

#endif
