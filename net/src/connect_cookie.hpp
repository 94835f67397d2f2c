#ifndef RETCON_NET_CONNECT_COOKIE_HPP
#define RETCON_NET_CONNECT_COOKIE_HPP

// The connect cookie of the ENet transport (docs/net.md, "Transports" and "Security model"): a
// server answers an ENet CONNECT that carries no valid cookie with a small cookie datagram and
// allocates nothing; the client connects again with the cookie as the CONNECT's data word. A
// cookie is a keyed MAC of the client's address and a time window, so only a client that receives
// the server's datagrams at that address can present one: a CONNECT from a spoofed address never
// takes a peer slot. The server keeps no state per client (the DTLS HelloVerifyRequest idea).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace retcon::internal {

/// @brief A cookie is valid in the window it was minted in and the next: 5 to 10 s, many round
/// trips, and a client whose cookie expired on the way is simply answered with a new one.
inline constexpr std::uint64_t connect_cookie_window_ms = 5000;

/// @brief The cookie datagram: 0xFF 0xFF 'r' 'c', the CONNECT's connect ID as it was on the wire
/// (4 bytes), the cookie (u32 big-endian, as ENet puts the CONNECT's data word). Smaller than the
/// 56-byte CONNECT it answers, so the server never amplifies. Its first two bytes read as an ENet
/// header for peer 0xFFF with the compressed flag, which an ENet host without a compressor ignores.
inline constexpr std::size_t connect_cookie_reply_size = 12;

/// @brief Mints and checks cookies under a random 128-bit key drawn at construction (libsodium).
class connect_cookies {
public:
    connect_cookies();

    /// @brief The cookie for IPv4 address @p host (as ENet stores it, network order) and @p port at
    /// @p now_ms; never 0, the data word of a CONNECT without a cookie.
    [[nodiscard]] std::uint32_t mint(std::uint32_t host, std::uint16_t port, std::uint64_t now_ms) const;

    /// @brief Whether @p cookie was minted for @p host : @p port in the window of @p now_ms or the
    /// one before.
    [[nodiscard]] bool valid(std::uint32_t cookie, std::uint32_t host, std::uint16_t port, std::uint64_t now_ms) const;

private:
    [[nodiscard]] std::uint32_t mac(std::uint32_t host, std::uint16_t port, std::uint64_t window) const;

    std::array<unsigned char, 16> key_{};
};

/// @brief The cookie datagram answering the CONNECT whose connect ID field held @p connect_id
/// (as read from the wire, unconverted).
[[nodiscard]] std::array<std::byte, connect_cookie_reply_size> encode_cookie_reply(std::uint32_t connect_id,
                                                                                   std::uint32_t cookie);

/// @brief The cookie in @p datagram if it is a cookie datagram answering the CONNECT with
/// @p connect_id (an off-path sender cannot guess it), else nothing.
[[nodiscard]] std::optional<std::uint32_t> decode_cookie_reply(std::span<const std::byte> datagram,
                                                               std::uint32_t connect_id);

} // namespace retcon::internal

#endif
