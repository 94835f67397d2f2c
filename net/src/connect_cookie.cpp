// Connect cookies (connect_cookie.hpp): SipHash-2-4 from libsodium (crypto_shorthash), a PRF made
// for short inputs, keyed by 128 random bits per server transport.
#include "connect_cookie.hpp"

#include <sodium.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace retcon::internal {

namespace {
constexpr std::array<std::byte, 4> reply_magic{std::byte{0xFF}, std::byte{0xFF}, std::byte{'r'}, std::byte{'c'}};
} // namespace

connect_cookies::connect_cookies() {
    // sodium_init is thread-safe and idempotent; without the system generator the key would be
    // guessable, and a guessable key lets a spoofer mint cookies.
    if (sodium_init() < 0) {
        std::fputs("retcon: libsodium could not initialise the system's random generator\n", stderr);
        std::abort();
    }
    randombytes_buf(key_.data(), key_.size());
}

std::uint32_t connect_cookies::mac(std::uint32_t host, std::uint16_t port, std::uint64_t window) const {
    std::array<unsigned char, 14> in{};
    std::memcpy(in.data(), &host, 4);
    in[4] = static_cast<unsigned char>(port >> 8);
    in[5] = static_cast<unsigned char>(port & 0xFF);
    for (std::size_t i = 0; i < 8; ++i) in[6 + i] = static_cast<unsigned char>(window >> (8 * i));
    std::array<unsigned char, crypto_shorthash_BYTES> out{};
    crypto_shorthash(out.data(), in.data(), in.size(), key_.data());
    std::uint32_t cookie = 0;
    for (std::size_t i = 0; i < 4; ++i) cookie = (cookie << 8) | out[i];
    return cookie == 0 ? 1u : cookie; // 0 means "no cookie"
}

std::uint32_t connect_cookies::mint(std::uint32_t host, std::uint16_t port, std::uint64_t now_ms) const {
    return mac(host, port, now_ms / connect_cookie_window_ms);
}

bool connect_cookies::valid(std::uint32_t cookie, std::uint32_t host, std::uint16_t port, std::uint64_t now_ms) const {
    if (cookie == 0) return false;
    const std::uint64_t window = now_ms / connect_cookie_window_ms;
    // Both compared, whatever the first says: the time taken tells nothing about the key.
    const bool now = mac(host, port, window) == cookie;
    const bool before = window != 0 && mac(host, port, window - 1) == cookie;
    return now || before;
}

std::array<std::byte, connect_cookie_reply_size> encode_cookie_reply(std::uint32_t connect_id, std::uint32_t cookie) {
    std::array<std::byte, connect_cookie_reply_size> out{};
    std::memcpy(out.data(), reply_magic.data(), reply_magic.size());
    std::memcpy(out.data() + 4, &connect_id, 4);
    for (std::size_t i = 0; i < 4; ++i) out[8 + i] = static_cast<std::byte>(cookie >> (24 - 8 * i));
    return out;
}

std::optional<std::uint32_t> decode_cookie_reply(std::span<const std::byte> datagram, std::uint32_t connect_id) {
    if (datagram.size() != connect_cookie_reply_size) return std::nullopt;
    if (std::memcmp(datagram.data(), reply_magic.data(), reply_magic.size()) != 0) return std::nullopt;
    std::uint32_t echoed = 0;
    std::memcpy(&echoed, datagram.data() + 4, 4);
    if (echoed != connect_id) return std::nullopt;
    std::uint32_t cookie = 0;
    for (std::size_t i = 8; i < 12; ++i) cookie = (cookie << 8) | std::to_integer<std::uint32_t>(datagram[i]);
    if (cookie == 0) return std::nullopt;
    return cookie;
}

} // namespace retcon::internal
