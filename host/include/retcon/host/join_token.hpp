#ifndef RETCON_HOST_JOIN_TOKEN_HPP
#define RETCON_HOST_JOIN_TOKEN_HPP

// Join tokens: the admission proof a matchmaker or lobby signs and a match host verifies
// (docs/join-tokens.md). Ed25519 signatures: servers hold only public keys, so a compromised
// server cannot mint tokens. libsodium stays private to host/src/join_token.cpp.

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <retcon/ecs/error.hpp>

namespace retcon {

/// @brief The per-match parameters a token carries: a match opens on its first valid token
/// (docs/join-tokens.md, "Byte format").
struct match_params {
    std::uint8_t players = 2;   ///< player slots, 1..32
    std::uint16_t tick_hz = 60; ///< simulation rate, 1..1000
    std::uint64_t seed = 1;     ///< the match's random seed
    std::string settings{};     ///< game-defined text (any bytes), at most 256 bytes
    bool operator==(const match_params &) const = default;
};

/// @brief Whether a token admits a player (to a slot) or a spectator.
enum class token_role : std::uint8_t { player = 0, spectator = 1 };

/// @brief The slot a spectator token carries.
inline constexpr std::uint8_t spectator_slot = 0xff;

/**
 * @brief The fields of a join token (docs/join-tokens.md).
 *
 * Limits (checked by sign_token and decode_token): `fleet` at most 64 bytes of printable ASCII
 * (0x20..0x7e; may be empty); `match_id` 1..64 bytes of `[A-Za-z0-9._-]`; `player_name` at
 * most 32 bytes with no control characters (UTF-8 is fine); a player's `slot` is below
 * `params.players` and its `player_id` is nonzero; a spectator's `slot` is 0xff;
 * `expires_at` is after `issued_at`; the whole token is at most max_join_token_bytes.
 */
struct join_token {
    token_role role = token_role::player;
    std::uint32_t key_id = 0;          ///< the signing key's id; set by sign_token
    std::uint64_t issued_at = 0;       ///< unix seconds
    std::uint64_t expires_at = 0;      ///< unix seconds, after issued_at
    std::array<std::byte, 16> nonce{}; ///< set by sign_token (random); the replay cache's key
    std::string fleet;                 ///< the fleet (or server) it is for, <= 64 bytes
    std::string match_id{};            ///< 1..64 bytes, [A-Za-z0-9._-]
    std::uint8_t slot = 0;             ///< player slot; 0xff (spectator_slot) for spectators
    std::uint64_t player_id = 0;       ///< the lobby's player identity (nonzero for players)
    std::string player_name{};         ///< <= 32 bytes, no control characters
    match_params params{};             ///< the match this token opens or joins
    bool operator==(const join_token &) const = default;
};

/// @brief An Ed25519 secret key (libsodium's 64-byte form: seed then public key) and its id.
/// Only the issuer (lobby, matchmaker, `retcon-token issue`) holds one.
struct signing_key {
    std::uint32_t key_id = 0;
    std::array<std::byte, 64> secret{}; ///< crypto_sign_SECRETKEYBYTES
};

/// @brief An Ed25519 public key and its id: what a match host holds.
struct verify_key {
    std::uint32_t key_id = 0;
    std::array<std::byte, 32> public_key{}; ///< crypto_sign_PUBLICKEYBYTES
    bool operator==(const verify_key &) const = default;
};

/// @brief The longest encoded token (the `hello` message carries at most this many bytes,
/// docs/protocol.md). The field limits alone would allow 547 bytes, so the longest fleet,
/// match id, name and settings cannot all be used at once: sign_token says so.
inline constexpr std::size_t max_join_token_bytes = 512;
/// @brief The shortest encoded token (empty fleet, name and settings; a one-byte match id).
inline constexpr std::size_t min_join_token_bytes = 132;
/// @brief The longest text form of a token (base64url of max_join_token_bytes, no padding).
inline constexpr std::size_t max_join_token_text = (max_join_token_bytes * 4 + 2) / 3;

/// @brief A fresh key pair from the system's cryptographic generator.
[[nodiscard]] signing_key generate_signing_key(std::uint32_t key_id);
/// @brief The public half of @p key, with its id.
[[nodiscard]] verify_key public_key_of(const signing_key &key);

/**
 * @brief Writes a key file: one line of text, "retcon-signing-key 1 <key_id> <128 hex digits>"
 * or "retcon-verify-key 1 <key_id> <64 hex digits>".
 *
 * Written by write_file_atomic (<retcon/snapshot/atomic_file.hpp>): a reader sees the old file
 * or the new one, and a failure leaves the old one. The signing key's file is 0600 whatever the
 * umask; the verify key's 0644. An existing regular file is replaced; anything else is refused.
 */
result<void> write_key_file(const std::filesystem::path &path, const signing_key &key);
/// @copydoc write_key_file(const std::filesystem::path &, const signing_key &)
result<void> write_key_file(const std::filesystem::path &path, const verify_key &key);
/// @brief Reads a signing key file; errors name the path and what is wrong (missing file,
/// wrong kind, unknown version, bad key id, bad hex, wrong length, public half not matching).
[[nodiscard]] result<signing_key> read_signing_key(const std::filesystem::path &path);
/// @brief Reads a verify key file; errors as read_signing_key.
[[nodiscard]] result<verify_key> read_verify_key(const std::filesystem::path &path);

/// @brief Signs @p token: fills key_id and a fresh random nonce, checks every field (misuse is
/// an `invalid_argument` error naming the field), returns the encoded bytes.
[[nodiscard]] result<std::vector<std::byte>> sign_token(join_token token, const signing_key &key);
/// @brief Parses without checking the signature (for `retcon-token inspect` and logs). Strict:
/// a wrong length or any out-of-range field is an error naming the field and its byte offset.
[[nodiscard]] result<join_token> decode_token(std::span<const std::byte> bytes);
/// @brief Text form for command lines: base64url (RFC 4648 section 5) without padding.
[[nodiscard]] std::string token_to_text(std::span<const std::byte> bytes);
/// @brief Reads the text form; anything else (padding, whitespace, other characters,
/// non-canonical trailing bits, more than max_join_token_text characters) is an error.
[[nodiscard]] result<std::vector<std::byte>> token_from_text(std::string_view text);

/// @brief Why a token was refused.
enum class token_refusal : std::uint8_t {
    missing,       ///< no token at all
    malformed,     ///< does not decode (decode_token's error)
    unknown_key,   ///< signed with a key id this server does not hold
    forged,        ///< the signature does not verify
    not_yet_valid, ///< issued_at is further in the future than the clock skew allows
    expired,       ///< expires_at is further in the past than the clock skew allows
    wrong_fleet,   ///< the token names another fleet
    cache_full     ///< the replay cache holds max_cached unexpired tokens: no new token fits
};

/// @brief Short stable name of a refusal ("missing", "forged", ...).
[[nodiscard]] const char *to_string(token_refusal r) noexcept;

/// @brief A token's text field as messages show it: in single quotes, with control characters,
/// quotes, backslashes and bytes that are not UTF-8 as \xNN (a hostile name cannot forge log
/// lines: docs/hosting.md, "Logs").
[[nodiscard]] std::string quoted_text(std::string_view text);

/// @brief A token that verified, and whether this was the first time this verifier saw it.
struct verified_token {
    join_token token{};
    /// false: the verifier has accepted this token before. The host decides what a reused token
    /// is good for (a reconnection that also presents the slot's reconnect token).
    bool first_use = true;
};

/// @brief What a token_verifier checks (docs/join-tokens.md, "Verification").
struct token_verifier_options {
    std::string fleet{};               ///< tokens must name this fleet, exactly
    std::uint32_t clock_skew_s = 30;   ///< allowed skew each way on issued_at and expires_at
    std::size_t max_cached = 1u << 20; ///< replay cache bound (entries, about 100 bytes each)
};

/**
 * @brief Verifies join tokens against a few public keys (two during a rotation) and keeps the
 * replay cache (docs/join-tokens.md).
 *
 * A token is accepted when it decodes, names a key id the verifier holds, its signature
 * verifies with that key, its fleet is the verifier's, and `issued_at - skew <= now <=
 * expires_at + skew`. The first acceptance records the token's nonce until `expires_at + skew`
 * (the token is refused as expired after that, so forgetting it then is safe); a later
 * acceptance of the same token has `first_use = false`. Expired entries are purged a few per
 * call (bounded work per call; each entry is purged once), and all of them before a new token is
 * refused as `cache_full`.
 *
 * Not thread-safe: one verifier per thread, or a lock around it.
 */
class token_verifier {
public:
    /// @brief Accepts tokens signed by any of @p keys (several keys with one id: any of them).
    token_verifier(std::vector<verify_key> keys, token_verifier_options options);
    ~token_verifier();
    token_verifier(token_verifier &&) noexcept;
    token_verifier &operator=(token_verifier &&) noexcept;
    token_verifier(const token_verifier &) = delete;
    token_verifier &operator=(const token_verifier &) = delete;

    /// @brief A verification's result: `ok` set, or the refusal and a message saying why
    /// ("join token expired 42 s ago (clock skew allowed: 30 s)").
    struct outcome {
        std::optional<verified_token> ok{};
        token_refusal refusal{};
        std::string message{};
    };
    /// @brief Verifies @p bytes at @p now_unix_s (injected: tests use fixed times).
    [[nodiscard]] outcome verify(std::span<const std::byte> bytes, std::uint64_t now_unix_s);
    /// @brief Replaces the accepted keys (rotation). The replay cache is kept.
    void set_keys(std::vector<verify_key> keys);
    /// @brief The accepted keys.
    [[nodiscard]] const std::vector<verify_key> &keys() const noexcept;
    /// @brief The options given at construction.
    [[nodiscard]] const token_verifier_options &options() const noexcept;
    /// @brief Removes every replay cache entry whose token has expired at @p now_unix_s
    /// (verify does this a few entries at a time).
    void purge(std::uint64_t now_unix_s);
    /// @brief Undoes the first use that verify() recorded for @p token (only its nonce counts), so
    /// its next verification is a first use again. For a host that refuses the admission after
    /// all (the match is full, the server is draining): the player may retry with the same token.
    /// The cache entry stays until the token expires.
    void release(const join_token &token);
    /// @brief Entries in the replay cache, including expired ones not purged yet.
    [[nodiscard]] std::size_t cached() const noexcept;

private:
    struct state;
    std::unique_ptr<state> state_;
};

} // namespace retcon

#endif
