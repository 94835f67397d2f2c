// Join tokens (docs/join-tokens.md): the byte format, Ed25519 signing and verification, key
// files and the replay cache. The only translation unit of retcon::host that includes libsodium.
#include <retcon/host/join_token.hpp>

#include <retcon/snapshot/atomic_file.hpp>

#include <sodium.h>

#include <retcon/internal/byte_io.hpp>
#include <retcon/internal/printable.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <unordered_map>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace retcon {

namespace {

static_assert(sizeof(signing_key::secret) == crypto_sign_SECRETKEYBYTES);
static_assert(sizeof(verify_key::public_key) == crypto_sign_PUBLICKEYBYTES);
static_assert(crypto_sign_BYTES == 64);

void init_sodium() {
    // sodium_init is thread-safe and idempotent; it fails only if the system generator cannot
    // be opened, and an issuer must not hand out guessable nonces or keys then.
    static const int status = sodium_init();
    if (status < 0) {
        std::fputs("retcon: libsodium could not initialise the system's random generator\n", stderr);
        std::abort();
    }
}

const unsigned char *uc(const std::byte *p) noexcept { return reinterpret_cast<const unsigned char *>(p); }
unsigned char *uc(std::byte *p) noexcept { return reinterpret_cast<unsigned char *>(p); }

// ---------------------------------------------------------------------------------------------
// The byte format (docs/join-tokens.md, "Byte format")

constexpr std::array<std::byte, 4> magic{std::byte{'R'}, std::byte{'C'}, std::byte{'J'}, std::byte{'T'}};
constexpr std::uint8_t format_version = 1;
constexpr std::size_t signature_bytes = 64;
constexpr std::size_t max_fleet = 64;
constexpr std::size_t max_match_id = 64;
constexpr std::size_t max_name = 32;
constexpr std::size_t max_settings = 256;
constexpr std::uint8_t max_players = 32;
constexpr std::uint16_t max_tick_hz = 1000;

/// Fixed part: magic, version, role, key id, two times, nonce, five length prefixes (one u16),
/// slot, player id, players, tick rate, seed, signature.
constexpr std::size_t fixed_bytes = 4 + 1 + 1 + 4 + 8 + 8 + 16 + 1 + 1 + 1 + 8 + 1 + 1 + 2 + 8 + 2 + signature_bytes;
static_assert(fixed_bytes + 1 == min_join_token_bytes);
static_assert(fixed_bytes + max_fleet + max_match_id + max_name + max_settings == 547);
static_assert(max_join_token_text == 683);

// The field rules, shared by sign_token (misuse) and decode_token (hostile input). Each returns
// nullptr when the value is fine, or what is wrong with it.

const char *check_fleet(std::string_view s) noexcept {
    if (s.size() > max_fleet) return "is longer than 64 bytes";
    for (const char c : s)
        if (c < 0x20 || c > 0x7e) return "is not printable ASCII";
    return nullptr;
}

const char *check_match_id(std::string_view s) noexcept {
    if (s.empty()) return "is empty (1..64 bytes)";
    if (s.size() > max_match_id) return "is longer than 64 bytes";
    for (const char c : s) {
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                        c == '_' || c == '-';
        if (!ok) return "has a character outside [A-Za-z0-9._-]";
    }
    return nullptr;
}

const char *check_name(std::string_view s) noexcept {
    if (s.size() > max_name) return "is longer than 32 bytes";
    for (const char c : s)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "has a control character";
    return nullptr;
}

const char *check_settings(std::string_view s) noexcept {
    return s.size() > max_settings ? "is longer than 256 bytes" : nullptr;
}

const char *check_players(std::uint8_t p) noexcept {
    return p >= 1 && p <= max_players ? nullptr : "is out of range (1..32)";
}

const char *check_tick(std::uint16_t t) noexcept {
    return t >= 1 && t <= max_tick_hz ? nullptr : "is out of range (1..1000)";
}

/// Slot against role and player count (players already checked).
const char *check_slot(token_role role, std::uint8_t slot, std::uint8_t players) noexcept {
    if (role == token_role::spectator) return slot == spectator_slot ? nullptr : "is not 255 (a spectator's slot)";
    return slot < players ? nullptr : "is not below the match's player count";
}

const char *check_player_id(token_role role, std::uint64_t id) noexcept {
    return role == token_role::player && id == 0 ? "is not allowed for a player (must be nonzero)" : nullptr;
}

const char *check_times(std::uint64_t issued, std::uint64_t expires) noexcept {
    return expires > issued ? nullptr : "is not after issued_at";
}

std::size_t encoded_size(const join_token &t) noexcept {
    return fixed_bytes + t.fleet.size() + t.match_id.size() + t.player_name.size() + t.params.settings.size();
}

/// Every byte before the signature.
std::vector<std::byte> encode_body(const join_token &t) {
    std::vector<std::byte> out;
    out.reserve(encoded_size(t));
    internal::byte_writer w{out};
    w.bytes(magic);
    w.u8(format_version);
    w.u8(static_cast<std::uint8_t>(t.role));
    w.u32(t.key_id);
    w.u64(t.issued_at);
    w.u64(t.expires_at);
    w.bytes(t.nonce);
    // Text lengths were checked against their limits (check_for_signing), so nothing is cut.
    w.text8(t.fleet);
    w.text8(t.match_id);
    w.u8(t.slot);
    w.u64(t.player_id);
    w.text8(t.player_name);
    w.u8(t.params.players);
    w.u16(t.params.tick_hz);
    w.u64(t.params.seed);
    w.text16(t.params.settings);
    return out;
}

/// Reads fields in order with internal::byte_reader; every failure names the field and its
/// byte offset (the byte reader's sticky failure cannot say which field ran out).
class reader {
public:
    explicit reader(std::span<const std::byte> b) : in_{b} {}

    [[nodiscard]] std::size_t offset() const noexcept { return in_.offset(); }
    [[nodiscard]] std::size_t left() const noexcept { return in_.remaining(); }
    [[nodiscard]] bool failed() const noexcept { return !err_.empty(); }
    [[nodiscard]] const std::string &why() const noexcept { return err_; }
    [[nodiscard]] errc code() const noexcept { return code_; }

    template<class T>
    bool uint(const char *field, T &v) {
        static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
        if (!need(field, sizeof(T))) return false;
        if constexpr (sizeof(T) == 1) v = static_cast<T>(in_.u8());
        else if constexpr (sizeof(T) == 2)
            v = static_cast<T>(in_.u16());
        else if constexpr (sizeof(T) == 4)
            v = static_cast<T>(in_.u32());
        else
            v = static_cast<T>(in_.u64());
        return true;
    }
    bool bytes(const char *field, std::span<std::byte> out) {
        if (!need(field, out.size())) return false;
        const auto b = in_.bytes(out.size());
        std::copy(b.begin(), b.end(), out.begin());
        return true;
    }
    /// A length-prefixed text field; @p max is checked before the bytes are read.
    template<class Len>
    bool text(const char *field, std::string &s, std::size_t max) {
        const std::size_t len_at = offset();
        Len len = 0;
        if (!uint(field, len)) return false;
        if (len > max) {
            fail(errc::corrupt, len_at, field, "length " + std::to_string(len) + " exceeds " + std::to_string(max));
            return false;
        }
        if (!need(field, len)) return false;
        s = in_.text(len, max);
        return true;
    }
    /// A field that decoded but breaks a rule (@p problem from the check_ functions).
    bool check(const char *field, std::size_t field_at, const char *problem, const std::string &value) {
        if (!problem) return true;
        fail(errc::corrupt, field_at, field, value + " " + problem);
        return false;
    }
    void fail(errc code, std::size_t at, const char *field, const std::string &text) {
        if (failed()) return;
        code_ = code;
        err_ = "join token field '" + std::string{field} + "' at byte " + std::to_string(at) + ": " + text;
    }

private:
    bool need(const char *field, std::size_t n) {
        if (left() >= n) return true;
        fail(errc::truncated, offset(), field,
             "needs " + std::to_string(n) + " bytes, only " + std::to_string(left()) + " left (truncated)");
        return false;
    }

    internal::byte_reader in_;
    std::string err_;
    errc code_ = errc::ok;
};

/// Checks every field for sign_token; the first problem as an invalid_argument error.
result<void> check_for_signing(const join_token &t) {
    auto bad = [](const char *field, const std::string &value, const char *problem) {
        return error{errc::invalid_argument,
                     "cannot sign join token: " + std::string{field} + " " + value + " " + problem};
    };
    if (t.role != token_role::player && t.role != token_role::spectator)
        return bad("role", std::to_string(static_cast<unsigned>(t.role)), "is neither player (0) nor spectator (1)");
    if (auto p = check_times(t.issued_at, t.expires_at)) return bad("expires_at", std::to_string(t.expires_at), p);
    if (auto p = check_fleet(t.fleet)) return bad("fleet", quoted_text(t.fleet), p);
    if (auto p = check_match_id(t.match_id)) return bad("match_id", quoted_text(t.match_id), p);
    if (auto p = check_players(t.params.players)) return bad("players", std::to_string(t.params.players), p);
    if (auto p = check_slot(t.role, t.slot, t.params.players))
        return bad("slot", std::to_string(t.slot) + " of " + std::to_string(t.params.players), p);
    if (auto p = check_player_id(t.role, t.player_id)) return bad("player_id", std::to_string(t.player_id), p);
    if (auto p = check_name(t.player_name)) return bad("player_name", quoted_text(t.player_name), p);
    if (auto p = check_tick(t.params.tick_hz)) return bad("tick_hz", std::to_string(t.params.tick_hz), p);
    if (auto p = check_settings(t.params.settings))
        return bad("settings", "(" + std::to_string(t.params.settings.size()) + " bytes)", p);
    if (const auto n = encoded_size(t); n > max_join_token_bytes)
        return error{errc::too_large, "cannot sign join token: it would be " + std::to_string(n) +
                                          " bytes, more than " + std::to_string(max_join_token_bytes) +
                                          " (shorten the settings, name, fleet or match id)"};
    return {};
}

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) noexcept { return a > ~b ? ~std::uint64_t{0} : a + b; }

// ---------------------------------------------------------------------------------------------
// Key files

std::string os_error(const std::string &what, const std::filesystem::path &path) {
    return what + " " + path.string() + ": " + std::strerror(errno);
}

std::string to_hex(std::span<const std::byte> b) {
    std::string s(2 * b.size() + 1, '\0');
    sodium_bin2hex(s.data(), s.size(), uc(b.data()), b.size());
    s.pop_back();
    return s;
}

/// Writes a key file atomically with permissions @p mode (docs/snapshot.md, "Writing files").
result<void> write_key_text(const std::filesystem::path &path, std::string_view text, std::filesystem::perms mode) {
    auto r = write_file_atomic(path, text, mode);
    if (!r) return error{r.code(), "key file " + r.message()};
    return r;
}

constexpr const char *signing_kind = "retcon-signing-key";
constexpr const char *verify_kind = "retcon-verify-key";
constexpr std::size_t max_key_file = 1024;

/// A key file's fields: its id and the key bytes (@p out), after checking the kind and version.
result<std::uint32_t> read_key_file(const std::filesystem::path &path, const char *kind, std::span<std::byte> out) {
    const std::string p = path.string();
    const bool secret = std::strcmp(kind, signing_kind) == 0;
    const char *what = secret ? "signing key file " : "verify key file ";
    // O_NONBLOCK: a FIFO would otherwise hold the open until a writer comes (refused below).
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT) return error{errc::not_found, std::string{what} + p + " does not exist"};
        return error{errc::io, os_error(std::string{"cannot read "} + what, path)};
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return error{errc::io, std::string{what} + p + " is not a regular file"};
    }
    // One line of text; anything much larger is not a key file (and is not read into memory).
    std::string text(max_key_file + 1, '\0');
    std::size_t size = 0;
    while (size < text.size()) {
        const ssize_t n = ::read(fd, text.data() + size, text.size() - size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const auto e = os_error(std::string{"cannot read "} + what, path);
            ::close(fd);
            return error{errc::io, e};
        }
        if (n == 0) break;
        size += static_cast<std::size_t>(n);
    }
    ::close(fd);
    if (size > max_key_file)
        return error{errc::corrupt, std::string{what} + p + " holds more than " + std::to_string(max_key_file) +
                                        " bytes: not a retcon key file (one line of text)"};
    text.resize(size);
    // Words separated by blanks; views into text, so wiping text wipes the secret's only copy.
    std::array<std::string_view, 5> words{};
    std::size_t count = 0;
    for (std::size_t i = 0; i < text.size() && count < words.size();) {
        const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
        if (blank(text[i])) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < text.size() && !blank(text[j])) ++j;
        words[count++] = std::string_view{text}.substr(i, j - i);
        i = j;
    }
    const auto [k, version, id, hex, extra] = words;
    auto wipe = [&] { sodium_memzero(text.data(), text.size()); };
    auto fail = [&](errc code, const std::string &why) -> result<std::uint32_t> {
        wipe();
        return error{code, std::string{what} + p + ": " + why};
    };
    const char *other = secret ? verify_kind : signing_kind;
    if (k == other)
        return fail(errc::bad_magic, secret ? "is a verify (public) key file; a signing (secret) key file is needed"
                                            : "is a signing (secret) key file; a verify (public) key file is needed "
                                              "(make one with retcon-token keygen; servers hold only public keys)");
    if (k != kind)
        return fail(errc::bad_magic, "not a retcon key file (it should start with '" + std::string{kind} + " 1 ')");
    if (version != "1")
        return fail(errc::bad_version, "key file version '" + std::string{version} + "', this build reads version 1");
    std::uint32_t key_id = 0;
    const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), key_id);
    if (id.empty() || ec != std::errc{} || end != id.data() + id.size())
        return fail(errc::corrupt, "key id '" + std::string{id} + "' is not a number 0..4294967295");
    if (hex.empty()) return fail(errc::truncated, "the key is missing after the key id");
    if (!extra.empty()) return fail(errc::corrupt, "unexpected text after the key");
    if (hex.size() != 2 * out.size())
        return fail(errc::corrupt, "the key has " + std::to_string(hex.size()) + " hexadecimal digits, " +
                                       std::to_string(2 * out.size()) + " expected");
    std::size_t written = 0;
    const char *hex_end = nullptr;
    if (sodium_hex2bin(uc(out.data()), out.size(), hex.data(), hex.size(), nullptr, &written, &hex_end) != 0 ||
        written != out.size() || hex_end != hex.data() + hex.size())
        return fail(errc::corrupt, "the key is not hexadecimal");
    wipe();
    return key_id;
}

// ---------------------------------------------------------------------------------------------
// The verifier's replay cache

using nonce_t = std::array<std::byte, 16>;

struct nonce_hash {
    std::array<unsigned char, crypto_shorthash_KEYBYTES> key{};
    std::size_t operator()(const nonce_t &n) const noexcept {
        // Keyed SipHash: nonces come from signed tokens only, but a lobby bug that reuses
        // nonces' leading bytes must not turn the table into a list.
        unsigned char h[crypto_shorthash_BYTES];
        crypto_shorthash(h, uc(n.data()), n.size(), key.data());
        std::size_t out = 0;
        std::memcpy(&out, h, sizeof out);
        return out;
    }
};

struct cache_entry {
    std::uint64_t expiry; ///< expires_at + clock skew: after this the token is refused anyway
    nonce_t nonce;
};

struct later_first {
    bool operator()(const cache_entry &a, const cache_entry &b) const noexcept { return a.expiry > b.expiry; }
};

/// Purged per verify: more than the one entry a verify can add, so the cache keeps up with the
/// clock, and few enough that a wave of expiries never stalls the caller.
constexpr std::size_t purge_per_call = 8;

std::string key_list(const std::vector<verify_key> &keys) {
    if (keys.empty()) return "this server accepts no keys";
    std::vector<std::uint32_t> ids;
    for (const auto &k : keys) ids.push_back(k.key_id);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::string s = ids.size() == 1 ? "this server accepts key " : "this server accepts keys ";
    for (std::size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "") + std::to_string(ids[i]);
    return s;
}

} // namespace

std::string quoted_text(std::string_view s) { return "'" + internal::printable(s) + "'"; }

// ---------------------------------------------------------------------------------------------

signing_key generate_signing_key(std::uint32_t key_id) {
    init_sodium();
    signing_key k;
    k.key_id = key_id;
    std::array<unsigned char, crypto_sign_PUBLICKEYBYTES> pk{};
    crypto_sign_keypair(pk.data(), uc(k.secret.data()));
    return k;
}

verify_key public_key_of(const signing_key &key) {
    verify_key v;
    v.key_id = key.key_id;
    crypto_sign_ed25519_sk_to_pk(uc(v.public_key.data()), uc(key.secret.data()));
    return v;
}

result<void> write_key_file(const std::filesystem::path &path, const signing_key &key) {
    std::string text = std::string{signing_kind} + " 1 " + std::to_string(key.key_id) + " " + to_hex(key.secret) + "\n";
    auto r = write_key_text(path, text, secret_file_mode);
    sodium_memzero(text.data(), text.size());
    return r;
}

result<void> write_key_file(const std::filesystem::path &path, const verify_key &key) {
    const std::string text =
        std::string{verify_kind} + " 1 " + std::to_string(key.key_id) + " " + to_hex(key.public_key) + "\n";
    return write_key_text(path, text, public_file_mode);
}

result<signing_key> read_signing_key(const std::filesystem::path &path) {
    init_sodium();
    signing_key k;
    auto id = read_key_file(path, signing_kind, k.secret);
    if (!id) return id.err();
    k.key_id = *id;
    // The secret's second half is its public key: a file edited by hand (or damaged in a way hex
    // does not show) would sign tokens no server accepts.
    std::array<unsigned char, crypto_sign_PUBLICKEYBYTES> pk{};
    std::array<unsigned char, crypto_sign_SECRETKEYBYTES> sk{};
    crypto_sign_seed_keypair(pk.data(), sk.data(), uc(k.secret.data()));
    const bool same = sodium_memcmp(sk.data(), k.secret.data(), sk.size()) == 0;
    sodium_memzero(sk.data(), sk.size());
    if (!same) {
        sodium_memzero(k.secret.data(), k.secret.size());
        return error{errc::corrupt, "signing key file " + path.string() +
                                        ": the key's public half does not match its secret half (damaged file)"};
    }
    return k;
}

result<verify_key> read_verify_key(const std::filesystem::path &path) {
    verify_key k;
    auto id = read_key_file(path, verify_kind, k.public_key);
    if (!id) return id.err();
    k.key_id = *id;
    return k;
}

result<std::vector<std::byte>> sign_token(join_token token, const signing_key &key) {
    init_sodium();
    if (sodium_is_zero(uc(key.secret.data()), key.secret.size()))
        return error{errc::invalid_argument, "cannot sign join token: signing key " + std::to_string(key.key_id) +
                                                 " is empty (use generate_signing_key or read_signing_key)"};
    token.key_id = key.key_id;
    randombytes_buf(token.nonce.data(), token.nonce.size());
    if (auto ok = check_for_signing(token); !ok) return ok.err();
    auto bytes = encode_body(token);
    const std::size_t body = bytes.size();
    bytes.resize(body + signature_bytes);
    crypto_sign_detached(uc(bytes.data() + body), nullptr, uc(bytes.data()), body, uc(key.secret.data()));
    return bytes;
}

result<join_token> decode_token(std::span<const std::byte> bytes) {
    if (bytes.empty()) return error{errc::truncated, std::string{"join token is empty"}};
    if (bytes.size() > max_join_token_bytes)
        return error{errc::too_large, "join token is " + std::to_string(bytes.size()) + " bytes, more than " +
                                          std::to_string(max_join_token_bytes)};
    if (bytes.size() < magic.size() || !std::equal(magic.begin(), magic.end(), bytes.begin()))
        return error{errc::bad_magic, std::string{"not a join token (it does not start with \"RCJT\")"}};
    reader r{bytes};
    join_token t;
    std::array<std::byte, 4> m{};
    r.bytes("magic", m);
    std::uint8_t version = 0;
    if (r.uint("version", version) && version != format_version)
        return error{errc::bad_version, "join token format version " + std::to_string(version) +
                                            ", this build reads version " + std::to_string(format_version)};
    std::size_t at = r.offset();
    std::uint8_t role = 0;
    if (r.uint("role", role) && role > 1)
        r.fail(errc::corrupt, at, "role", std::to_string(role) + " is neither 0 (player) nor 1 (spectator)");
    t.role = static_cast<token_role>(role);
    r.uint("key_id", t.key_id);
    r.uint("issued_at", t.issued_at);
    at = r.offset();
    if (r.uint("expires_at", t.expires_at))
        r.check("expires_at", at, check_times(t.issued_at, t.expires_at), std::to_string(t.expires_at));
    r.bytes("nonce", t.nonce);
    at = r.offset();
    if (r.text<std::uint8_t>("fleet", t.fleet, max_fleet))
        r.check("fleet", at, check_fleet(t.fleet), quoted_text(t.fleet));
    at = r.offset();
    if (r.text<std::uint8_t>("match_id", t.match_id, max_match_id))
        r.check("match_id", at, check_match_id(t.match_id), quoted_text(t.match_id));
    const std::size_t slot_at = r.offset();
    r.uint("slot", t.slot);
    at = r.offset();
    if (r.uint("player_id", t.player_id))
        r.check("player_id", at, check_player_id(t.role, t.player_id), std::to_string(t.player_id));
    at = r.offset();
    if (r.text<std::uint8_t>("player_name", t.player_name, max_name))
        r.check("player_name", at, check_name(t.player_name), quoted_text(t.player_name));
    at = r.offset();
    if (r.uint("players", t.params.players) &&
        r.check("players", at, check_players(t.params.players), std::to_string(t.params.players)))
        r.check("slot", slot_at, check_slot(t.role, t.slot, t.params.players),
                std::to_string(t.slot) + " of " + std::to_string(t.params.players));
    at = r.offset();
    if (r.uint("tick_hz", t.params.tick_hz))
        r.check("tick_hz", at, check_tick(t.params.tick_hz), std::to_string(t.params.tick_hz));
    r.uint("seed", t.params.seed);
    r.text<std::uint16_t>("settings", t.params.settings, max_settings);
    if (!r.failed() && r.left() != signature_bytes) {
        if (r.left() < signature_bytes)
            r.fail(errc::truncated, r.offset(), "signature",
                   "needs 64 bytes, only " + std::to_string(r.left()) + " left (truncated)");
        else
            r.fail(errc::corrupt, r.offset() + signature_bytes, "end",
                   std::to_string(r.left() - signature_bytes) + " bytes after the signature");
    }
    if (r.failed()) return error{r.code(), r.why()};
    return t;
}

std::string token_to_text(std::span<const std::byte> bytes) {
    constexpr int variant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;
    std::string s(sodium_base64_ENCODED_LEN(bytes.size(), variant), '\0');
    sodium_bin2base64(s.data(), s.size(), uc(bytes.data()), bytes.size(), variant);
    s.pop_back(); // the terminating NUL
    return s;
}

result<std::vector<std::byte>> token_from_text(std::string_view text) {
    if (text.empty()) return error{errc::truncated, std::string{"join token text is empty"}};
    if (text.size() > max_join_token_text)
        return error{errc::too_large, "join token text is " + std::to_string(text.size()) + " characters, more than " +
                                          std::to_string(max_join_token_text)};
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const bool ok =
            (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        if (!ok) {
            char shown[8];
            if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
                std::snprintf(shown, sizeof shown, "\\x%02x", static_cast<unsigned char>(c));
            else
                std::snprintf(shown, sizeof shown, "%c", c);
            return error{
                errc::corrupt,
                "join token text has '" + std::string{shown} + "' at character " + std::to_string(i) +
                    (c == '=' ? " (the text form has no padding)" : " (the text form is base64url: A-Z a-z 0-9 - _)")};
        }
    }
    std::vector<std::byte> out(text.size() * 3 / 4 + 1);
    std::size_t written = 0;
    const char *end = nullptr;
    if (sodium_base642bin(uc(out.data()), out.size(), text.data(), text.size(), nullptr, &written, &end,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        end != text.data() + text.size())
        return error{errc::corrupt, "join token text is not canonical base64url (a length of 4n+1 characters, or "
                                    "nonzero bits in the last character)"};
    out.resize(written);
    return out;
}

const char *to_string(token_refusal r) noexcept {
    switch (r) {
    case token_refusal::missing: return "missing";
    case token_refusal::malformed: return "malformed";
    case token_refusal::unknown_key: return "unknown_key";
    case token_refusal::forged: return "forged";
    case token_refusal::not_yet_valid: return "not_yet_valid";
    case token_refusal::expired: return "expired";
    case token_refusal::wrong_fleet: return "wrong_fleet";
    case token_refusal::cache_full: return "cache_full";
    }
    return "unknown";
}

// ---------------------------------------------------------------------------------------------

struct token_verifier::state {
    std::vector<verify_key> keys;
    token_verifier_options options;
    struct seen_entry {
        std::uint64_t expiry; ///< as in by_expiry
        bool used;            ///< false after release(): the next verification is a first use again
    };
    std::unordered_map<nonce_t, seen_entry, nonce_hash> seen;
    std::vector<cache_entry> by_expiry; ///< min-heap on expiry

    /// Pops at most @p limit entries that expired before @p now.
    void purge(std::uint64_t now, std::size_t limit) {
        while (limit-- > 0 && !by_expiry.empty() && by_expiry.front().expiry < now) {
            std::pop_heap(by_expiry.begin(), by_expiry.end(), later_first{});
            seen.erase(by_expiry.back().nonce);
            by_expiry.pop_back();
        }
    }
};

token_verifier::token_verifier(std::vector<verify_key> keys, token_verifier_options options)
    : state_{std::make_unique<state>()} {
    init_sodium();
    state_->keys = std::move(keys);
    state_->options = std::move(options);
    nonce_hash h;
    randombytes_buf(h.key.data(), h.key.size());
    state_->seen = std::unordered_map<nonce_t, state::seen_entry, nonce_hash>(0, h);
}

token_verifier::~token_verifier() = default;
token_verifier::token_verifier(token_verifier &&) noexcept = default;
token_verifier &token_verifier::operator=(token_verifier &&) noexcept = default;

void token_verifier::set_keys(std::vector<verify_key> keys) { state_->keys = std::move(keys); }

const std::vector<verify_key> &token_verifier::keys() const noexcept { return state_->keys; }

const token_verifier_options &token_verifier::options() const noexcept { return state_->options; }

void token_verifier::purge(std::uint64_t now_unix_s) { state_->purge(now_unix_s, ~std::size_t{0}); }

void token_verifier::release(const join_token &token) {
    if (const auto it = state_->seen.find(token.nonce); it != state_->seen.end()) it->second.used = false;
}

std::size_t token_verifier::cached() const noexcept { return state_->seen.size(); }

token_verifier::outcome token_verifier::verify(std::span<const std::byte> bytes, std::uint64_t now_unix_s) {
    state &s = *state_;
    const std::uint64_t skew = s.options.clock_skew_s;
    s.purge(now_unix_s, purge_per_call);
    auto refuse = [](token_refusal why, std::string message) {
        outcome o;
        o.refusal = why;
        o.message = std::move(message);
        return o;
    };
    if (bytes.empty())
        return refuse(token_refusal::missing, "no join token (this server admits players by token only)");
    auto decoded = decode_token(bytes);
    if (!decoded) return refuse(token_refusal::malformed, "malformed join token: " + decoded.message());
    join_token &t = *decoded;

    // Only the signature makes the other fields worth reading.
    bool known = false, verified = false;
    const std::size_t body = bytes.size() - signature_bytes;
    for (const auto &k : s.keys) {
        if (k.key_id != t.key_id) continue;
        known = true;
        if (crypto_sign_verify_detached(uc(bytes.data() + body), uc(bytes.data()), body, uc(k.public_key.data())) ==
            0) {
            verified = true;
            break;
        }
    }
    if (!known)
        return refuse(token_refusal::unknown_key,
                      "join token signed with unknown key " + std::to_string(t.key_id) + " (" + key_list(s.keys) + ")");
    if (!verified)
        return refuse(token_refusal::forged, "join token signature does not verify with key " +
                                                 std::to_string(t.key_id) + " (forged or corrupted)");

    if (t.fleet != s.options.fleet)
        return refuse(token_refusal::wrong_fleet, "join token is for fleet " + quoted_text(t.fleet) +
                                                      ", this server is " + quoted_text(s.options.fleet));
    if (t.issued_at > sat_add(now_unix_s, skew))
        return refuse(token_refusal::not_yet_valid, "join token is not valid for another " +
                                                        std::to_string(t.issued_at - now_unix_s) +
                                                        " s (clock skew allowed: " + std::to_string(skew) + " s)");
    const std::uint64_t expiry = sat_add(t.expires_at, skew);
    if (now_unix_s > expiry)
        return refuse(token_refusal::expired, "join token expired " + std::to_string(now_unix_s - t.expires_at) +
                                                  " s ago (clock skew allowed: " + std::to_string(skew) + " s)");

    const auto known_nonce = s.seen.find(t.nonce);
    const bool first_use = known_nonce == s.seen.end() || !known_nonce->second.used;
    if (known_nonce != s.seen.end()) {
        known_nonce->second.used = true;
    } else {
        if (s.seen.size() >= s.options.max_cached) s.purge(now_unix_s, ~std::size_t{0});
        if (s.seen.size() >= s.options.max_cached)
            return refuse(token_refusal::cache_full,
                          "join token replay cache is full (" + std::to_string(s.seen.size()) +
                              " unexpired tokens, token_verifier_options::max_cached); new tokens are refused until "
                              "some expire");
        s.seen.emplace(t.nonce, state::seen_entry{expiry, true});
        s.by_expiry.push_back(cache_entry{expiry, t.nonce});
        std::push_heap(s.by_expiry.begin(), s.by_expiry.end(), later_first{});
    }
    outcome o;
    o.ok = verified_token{std::move(t), first_use};
    return o;
}

} // namespace retcon
