#ifndef RETCON_INTERNAL_PRINTABLE_HPP
#define RETCON_INTERNAL_PRINTABLE_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace retcon::internal {

/// @brief What printable() is making safe: one untrusted value inside a line, or a whole line.
enum class printable_for : std::uint8_t {
    /// A string from the network or a file (a player's name, a sidecar's body, an address)
    /// placed inside a log line: also quotes, backslashes and the code points some readers take
    /// for line breaks or terminal controls (U+0080..U+009F, U+2028, U+2029) are escaped, so the
    /// value can neither end its line nor its quotes, and `\xNN` always means an escaped byte.
    value,
    /// A whole line (a composed text, a JSON line): only what could break it (control bytes,
    /// DEL, bytes that are not UTF-8). Quotes and backslashes are kept, so a JSON line stays the
    /// same JSON.
    line,
};

namespace printable_detail {

/// @brief Walks @p text, calling `keep(i, n)` for each byte or UTF-8 sequence that stays as it
/// is and `escape(i, n)` for each that is written as `\xNN` per byte (the rules of printable_for).
template<class Keep, class Escape>
void scan(std::string_view text, printable_for what, Keep keep, Escape escape) {
    const bool value = what == printable_for::value;
    const auto continuation = [&](std::size_t k, unsigned lo, unsigned hi) {
        if (k >= text.size()) return false;
        const unsigned b = static_cast<unsigned char>(text[k]);
        return b >= lo && b <= hi;
    };
    for (std::size_t i = 0; i < text.size();) {
        const unsigned b = static_cast<unsigned char>(text[i]);
        if (b < 0x80) {
            if (b < 0x20 || b == 0x7f || (value && (b == '\\' || b == '"' || b == '\''))) escape(i, 1);
            else
                keep(i, 1);
            ++i;
            continue;
        }
        // The length of a well-formed UTF-8 sequence starting at i (RFC 3629: no overlong
        // forms, no surrogates, nothing above U+10FFFF), or 0.
        std::size_t n = 0;
        if (b >= 0xc2 && b <= 0xdf) n = continuation(i + 1, 0x80, 0xbf) ? 2 : 0;
        else if (b >= 0xe0 && b <= 0xef) {
            const unsigned lo = b == 0xe0 ? 0xa0 : 0x80, hi = b == 0xed ? 0x9f : 0xbf;
            n = continuation(i + 1, lo, hi) && continuation(i + 2, 0x80, 0xbf) ? 3 : 0;
        } else if (b >= 0xf0 && b <= 0xf4) {
            const unsigned lo = b == 0xf0 ? 0x90 : 0x80, hi = b == 0xf4 ? 0x8f : 0xbf;
            n = continuation(i + 1, lo, hi) && continuation(i + 2, 0x80, 0xbf) && continuation(i + 3, 0x80, 0xbf) ? 4
                                                                                                                  : 0;
        }
        if (n == 0) { // a stray byte: escaped alone, and reading goes on at the next byte
            escape(i, 1);
            ++i;
            continue;
        }
        const unsigned b1 = static_cast<unsigned char>(text[i + 1]);
        const bool c1 = b == 0xc2 && b1 < 0xa0; // U+0080..U+009F
        const bool separator = b == 0xe2 && b1 == 0x80 && (text[i + 2] == '\xa8' || text[i + 2] == '\xa9'); // U+2028/9
        if (value && (c1 || separator)) escape(i, n);
        else
            keep(i, n);
        i += n;
    }
}

} // namespace printable_detail

/**
 * @brief @p text as one printable line of valid UTF-8 (docs/hosting.md, "Logs"): each byte
 * that must not appear is written `\xNN` (two lowercase hex digits); valid UTF-8 is kept as it
 * is. Nothing is cut: the result is at most four times as long as @p text. The one way every
 * untrusted string reaches a log (host, sessions' event texts, demos, tools).
 */
[[nodiscard]] inline std::string printable(std::string_view text, printable_for what = printable_for::value) {
    constexpr char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    printable_detail::scan(
        text, what, [&](std::size_t i, std::size_t n) { out.append(text.substr(i, n)); },
        [&](std::size_t i, std::size_t n) {
            for (std::size_t k = i; k < i + n; ++k) {
                const auto b = static_cast<unsigned char>(text[k]);
                out += '\\';
                out += 'x';
                out += hex[b >> 4];
                out += hex[b & 0xf];
            }
        });
    return out;
}

/// @brief True when printable(@p text, @p what) is @p text itself: a caller that holds the text
/// already keeps it without a copy (an event queue, a log sink).
[[nodiscard]] inline bool is_printable(std::string_view text, printable_for what = printable_for::value) {
    bool kept = true;
    printable_detail::scan(
        text, what, [](std::size_t, std::size_t) {}, [&](std::size_t, std::size_t) { kept = false; });
    return kept;
}

} // namespace retcon::internal

#endif
