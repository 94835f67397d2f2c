// Connect cookies (net/src/connect_cookie.hpp): docs/net.md, "Transports".
#include <catch2/catch.hpp>

#include "connect_cookie.hpp"

#include <array>
#include <cstring>

using namespace retcon;
using internal::connect_cookie_window_ms;

namespace {
constexpr std::uint32_t host_a = 0x0100007Fu; // 127.0.0.1 as ENet stores it (network order)
constexpr std::uint32_t host_b = 0x0200007Fu; // 127.0.0.2
} // namespace

TEST_CASE("a connect cookie is valid for its address and port for one to two windows", "[net][cookie]") {
    const internal::connect_cookies cookies;
    constexpr std::uint64_t t = 7 * connect_cookie_window_ms + 1234;
    const std::uint32_t c = cookies.mint(host_a, 40000, t);
    CHECK(c != 0);
    CHECK(cookies.mint(host_a, 40000, t) == c); // stateless: the same inputs, the same cookie
    CHECK(cookies.valid(c, host_a, 40000, t));
    CHECK(
        cookies.valid(c, host_a, 40000, (t / connect_cookie_window_ms + 1) * connect_cookie_window_ms)); // next window
    CHECK(cookies.valid(c, host_a, 40000, (t / connect_cookie_window_ms + 2) * connect_cookie_window_ms - 1));
    CHECK_FALSE(cookies.valid(c, host_a, 40000, (t / connect_cookie_window_ms + 2) * connect_cookie_window_ms));
    CHECK_FALSE(cookies.valid(c, host_a, 40000, t - connect_cookie_window_ms)); // not before it was minted
    // Another address or port needs its own cookie: a spoofer cannot use one it received itself.
    CHECK_FALSE(cookies.valid(c, host_b, 40000, t));
    CHECK_FALSE(cookies.valid(c, host_a, 40001, t));
    CHECK_FALSE(cookies.valid(0, host_a, 40000, t)); // 0: a CONNECT without a cookie
    CHECK_FALSE(cookies.valid(c ^ 1u, host_a, 40000, t));
}

TEST_CASE("connect cookies of two servers differ: each draws its own key", "[net][cookie]") {
    const internal::connect_cookies a, b;
    int same = 0;
    for (std::uint16_t port = 1; port <= 64; ++port) same += a.mint(host_a, port, 0) == b.mint(host_a, port, 0) ? 1 : 0;
    CHECK(same <= 1); // 64 draws of 32 bits: a collision is a 2^-26 event
}

TEST_CASE("the cookie datagram answers one CONNECT: its connect ID, 12 bytes", "[net][cookie]") {
    const auto d = internal::encode_cookie_reply(0xA1B2C3D4u, 0x01020304u);
    REQUIRE(d.size() == 12);
    const std::array<std::byte, 4> head{std::byte{0xFF}, std::byte{0xFF}, std::byte{'r'}, std::byte{'c'}};
    CHECK(std::memcmp(d.data(), head.data(), 4) == 0);
    CHECK(d[8] == std::byte{1});
    CHECK(d[11] == std::byte{4}); // big-endian, as ENet sends the CONNECT's data word
    CHECK(internal::decode_cookie_reply(d, 0xA1B2C3D4u) == 0x01020304u);
    CHECK_FALSE(internal::decode_cookie_reply(d, 0xA1B2C3D5u)); // another attempt's (or a guess)
    CHECK_FALSE(internal::decode_cookie_reply(std::span{d}.first(11), 0xA1B2C3D4u));
    auto bad = d;
    bad[2] = std::byte{'R'};
    CHECK_FALSE(internal::decode_cookie_reply(bad, 0xA1B2C3D4u));
    const auto zero = internal::encode_cookie_reply(7, 0);
    CHECK_FALSE(internal::decode_cookie_reply(zero, 7)); // 0 is never a cookie
}
