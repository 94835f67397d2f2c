#ifndef RETCON_NET_RECONNECT_TOKEN_HPP
#define RETCON_NET_RECONNECT_TOKEN_HPP

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include <retcon/ecs/error.hpp>

namespace retcon {

/**
 * @brief The secret a server gives a player with its slot, so the player can take the slot back
 * after a crash or a lost connection (docs/net.md, "Security model").
 *
 * 128 bits drawn from the operating system's cryptographic generator (libsodium's
 * `randombytes_buf`, which reads `getrandom` on Linux): no seed, no state in the process, so
 * one token says nothing about another. Compared in constant time. All zero means "none"
 * (a new player); a generated token is never all zero.
 *
 * Whoever holds a token can take its slot, which is the point: a game stores it where only the
 * player reads it (demo_client's `--token-file`) and never shows it to other players.
 */
class reconnect_token {
public:
    /// @brief Bytes on the wire (docs/protocol.md, `hello` and `welcome`).
    static constexpr std::size_t size = 16;

    /// @brief The empty token ("no token": a new player).
    constexpr reconnect_token() noexcept = default;
    /// @brief A token with exactly these bytes (decoders, tests).
    explicit reconnect_token(std::span<const std::byte, size> bytes) noexcept;

    /// @brief A fresh token from the system's cryptographic generator; never empty.
    [[nodiscard]] static reconnect_token generate();
    /// @brief Reads 32 hexadecimal digits (what `to_hex` writes; surrounding whitespace is
    /// ignored), or says what is wrong with the text.
    [[nodiscard]] static result<reconnect_token> parse(std::string_view hex);

    /// @brief 32 lowercase hexadecimal digits (empty token: 32 zeros).
    [[nodiscard]] std::string to_hex() const;
    /// @brief True for the empty token (all bytes zero); constant time.
    [[nodiscard]] bool empty() const noexcept;
    /// @brief The token's bytes.
    [[nodiscard]] std::span<const std::byte, size> bytes() const noexcept { return bytes_; }

    /// @brief Equal bytes, compared in constant time (the time taken says nothing about where
    /// two tokens first differ).
    friend bool operator==(const reconnect_token &a, const reconnect_token &b) noexcept;

private:
    std::array<std::byte, size> bytes_{};
};

} // namespace retcon

#endif
