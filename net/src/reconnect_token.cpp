// One of the two translation units that include libsodium (with connect_cookie.cpp): reconnect
// tokens come from the system's cryptographic generator and are compared in constant time (docs/net.md, "Security model").
#include <retcon/net/reconnect_token.hpp>

#include <sodium.h>

#include <cstdio>
#include <cstdlib>

namespace retcon {

namespace {

void init_sodium() {
    // sodium_init is thread-safe and idempotent; it fails only if the system generator cannot
    // be opened, and a server must not hand out guessable tokens then.
    static const int status = sodium_init();
    if (status < 0) {
        std::fputs("retcon: libsodium could not initialise the system's random generator\n", stderr);
        std::abort();
    }
}

} // namespace

reconnect_token::reconnect_token(std::span<const std::byte, size> bytes) noexcept {
    std::copy(bytes.begin(), bytes.end(), bytes_.begin());
}

reconnect_token reconnect_token::generate() {
    init_sodium();
    reconnect_token t;
    do randombytes_buf(t.bytes_.data(), size);
    while (t.empty()); // 2^-128: but "empty" means "no token", so never hand it out
    return t;
}

result<reconnect_token> reconnect_token::parse(std::string_view hex) {
    while (!hex.empty() && (hex.front() == ' ' || hex.front() == '\t' || hex.front() == '\n' || hex.front() == '\r'))
        hex.remove_prefix(1);
    while (!hex.empty() && (hex.back() == ' ' || hex.back() == '\t' || hex.back() == '\n' || hex.back() == '\r'))
        hex.remove_suffix(1);
    if (hex.size() != 2 * size)
        return error{errc::corrupt,
                     "a reconnect token is 32 hexadecimal digits, got " + std::to_string(hex.size()) + " characters"};
    reconnect_token t;
    std::size_t written = 0;
    const char *end = nullptr;
    if (sodium_hex2bin(reinterpret_cast<unsigned char *>(t.bytes_.data()), size, hex.data(), hex.size(), nullptr,
                       &written, &end) != 0 ||
        written != size || end != hex.data() + hex.size())
        return error{errc::corrupt, "a reconnect token is 32 hexadecimal digits; this one has other characters"};
    return t;
}

std::string reconnect_token::to_hex() const {
    char text[2 * size + 1];
    sodium_bin2hex(text, sizeof text, reinterpret_cast<const unsigned char *>(bytes_.data()), size);
    return std::string(text, 2 * size);
}

bool reconnect_token::empty() const noexcept {
    return sodium_is_zero(reinterpret_cast<const unsigned char *>(bytes_.data()), size) == 1;
}

bool operator==(const reconnect_token &a, const reconnect_token &b) noexcept {
    return sodium_memcmp(a.bytes_.data(), b.bytes_.data(), reconnect_token::size) == 0;
}

} // namespace retcon
