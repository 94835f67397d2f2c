// retcon-token — make signing keys, issue join tokens and inspect them (docs/join-tokens.md).
// Argument parsing over retcon::host's join_token.hpp; the logic is tested in
// tests/host/join_token.cpp. Exit codes: the table `exit_codes` below (printed by --help).
#include <retcon/host/join_token.hpp>
#include <retcon/version.hpp>

#include <CLI/CLI.hpp>
#include <exit_codes.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>

namespace {

enum class exit_code : int {
    ok = 0,      ///< success; `inspect --public`: the token verifies
    refused = 1, ///< `inspect --public`: the token is refused (the reason is printed)
    usage = 2,   ///< the command line is wrong, or the token is malformed
    keys = 3,    ///< a key file cannot be read or written
};

using row = retcon::tools::exit_code_row<exit_code>;
using retcon::tools::status;

constexpr std::array exit_codes{
    row{exit_code::ok, "ok", "success (inspect --public: the token verifies)"},
    row{exit_code::refused, "refused", "inspect --public: the token is refused (the reason is printed)"},
    row{exit_code::usage, "usage", "the command line is wrong, or the token is malformed"},
    row{exit_code::keys, "keys", "a key file cannot be read or written"},
};

int fail(exit_code code, const std::string &message) {
    std::fprintf(stderr, "retcon-token: %s\n", message.c_str());
    return status(code);
}

std::uint64_t wall_clock_now() {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

/// "2023-11-14T22:13:20Z" (UTC), or the number when it is out of gmtime's range.
std::string utc(std::uint64_t t) {
    if (t > 253402300799ull) return "after year 9999";
    const std::time_t tt = static_cast<std::time_t>(t);
    std::tm tm{};
    if (!gmtime_r(&tt, &tm)) return "?";
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

std::string hex(std::span<const std::byte> b) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s;
    for (const auto x : b) {
        s += digits[std::to_integer<unsigned>(x) >> 4];
        s += digits[std::to_integer<unsigned>(x) & 15];
    }
    return s;
}

std::string relative(std::uint64_t t, std::uint64_t now) {
    if (t >= now) return "in " + std::to_string(t - now) + " s";
    return std::to_string(now - t) + " s ago";
}

int cmd_keygen(std::uint32_t key_id, const std::string &secret_path, const std::string &public_path, bool force) {
    if (!force) {
        for (const auto &p : {secret_path, public_path}) {
            std::error_code ec;
            if (std::filesystem::exists(std::filesystem::symlink_status(p, ec)))
                return fail(exit_code::keys, p + " exists; not replacing a key (use --force)");
        }
    }
    const auto key = retcon::generate_signing_key(key_id);
    if (auto w = retcon::write_key_file(secret_path, key); !w) return fail(exit_code::keys, w.message());
    if (auto w = retcon::write_key_file(public_path, retcon::public_key_of(key)); !w)
        return fail(exit_code::keys, w.message());
    std::printf("key %u: signing key (secret, 0600) in %s, verify key (public, for servers) in %s\n", key_id,
                secret_path.c_str(), public_path.c_str());
    return status(exit_code::ok);
}

struct issue_args {
    std::string secret;
    std::string match_id;
    std::optional<unsigned> slot;
    bool spectator = false;
    std::optional<std::uint64_t> player_id;
    std::string name;
    std::string fleet;
    unsigned players = 0;
    unsigned tick = 0;
    std::uint64_t seed = 0;
    std::string settings;
    std::uint64_t ttl = 0;
    std::optional<std::uint64_t> now;
};

int cmd_issue(const issue_args &a) {
    if (a.spectator == a.slot.has_value())
        return fail(exit_code::usage, "issue needs exactly one of --slot N and --spectator");
    if (a.slot && !a.player_id) return fail(exit_code::usage, "a player's token needs --player-id");
    if (a.ttl == 0) return fail(exit_code::usage, "--ttl must be at least 1 second");
    // Range checks the narrow fields cannot make themselves; the rest is sign_token's.
    if (a.slot && *a.slot > 255)
        return fail(exit_code::usage, "--slot " + std::to_string(*a.slot) + " is out of range");
    if (a.players > 255)
        return fail(exit_code::usage, "--players " + std::to_string(a.players) + " is out of range (1..32)");
    if (a.tick > 65535)
        return fail(exit_code::usage, "--tick " + std::to_string(a.tick) + " is out of range (1..1000)");
    auto key = retcon::read_signing_key(a.secret);
    if (!key) return fail(exit_code::keys, key.message());
    retcon::join_token t;
    t.role = a.spectator ? retcon::token_role::spectator : retcon::token_role::player;
    t.issued_at = a.now.value_or(wall_clock_now());
    if (t.issued_at > ~std::uint64_t{0} - a.ttl) return fail(exit_code::usage, "--now plus --ttl overflows");
    t.expires_at = t.issued_at + a.ttl;
    t.fleet = a.fleet;
    t.match_id = a.match_id;
    t.slot = a.spectator ? retcon::spectator_slot : static_cast<std::uint8_t>(*a.slot);
    t.player_id = a.player_id.value_or(0);
    t.player_name = a.name;
    t.params.players = static_cast<std::uint8_t>(a.players);
    t.params.tick_hz = static_cast<std::uint16_t>(a.tick);
    t.params.seed = a.seed;
    t.params.settings = a.settings;
    auto bytes = retcon::sign_token(std::move(t), *key);
    if (!bytes) return fail(exit_code::usage, bytes.message());
    std::puts(retcon::token_to_text(*bytes).c_str());
    return status(exit_code::ok);
}

void print_token(const retcon::join_token &t, std::size_t size, std::uint64_t now) {
    const bool player = t.role == retcon::token_role::player;
    std::printf("join token (format 1, %zu bytes)\n", size);
    std::printf("  role:        %s\n", player ? "player" : "spectator");
    std::printf("  key id:      %u\n", t.key_id);
    std::printf("  issued at:   %llu (%s, %s)\n", static_cast<unsigned long long>(t.issued_at),
                utc(t.issued_at).c_str(), relative(t.issued_at, now).c_str());
    std::printf("  expires at:  %llu (%s, %s; lifetime %llu s)\n", static_cast<unsigned long long>(t.expires_at),
                utc(t.expires_at).c_str(), relative(t.expires_at, now).c_str(),
                static_cast<unsigned long long>(t.expires_at - t.issued_at));
    std::printf("  nonce:       %s\n", hex(t.nonce).c_str());
    std::printf("  fleet:       %s\n", retcon::quoted_text(t.fleet).c_str());
    std::printf("  match id:    %s\n", t.match_id.c_str());
    if (player) std::printf("  slot:        %u\n", static_cast<unsigned>(t.slot));
    else
        std::printf("  slot:        255 (spectator)\n");
    std::printf("  player id:   %llu\n", static_cast<unsigned long long>(t.player_id));
    std::printf("  player name: %s\n", retcon::quoted_text(t.player_name).c_str());
    std::printf("  players:     %u\n", static_cast<unsigned>(t.params.players));
    std::printf("  tick rate:   %u Hz\n", static_cast<unsigned>(t.params.tick_hz));
    std::printf("  seed:        %llu\n", static_cast<unsigned long long>(t.params.seed));
    std::printf("  settings:    %s (%zu bytes)\n", retcon::quoted_text(t.params.settings).c_str(),
                t.params.settings.size());
}

int cmd_inspect(std::string text, const std::optional<std::string> &public_path,
                const std::optional<std::string> &fleet, std::optional<std::uint64_t> now_arg) {
    if (text == "-") {
        // A token's text with generous room for blanks around it; more is not a token, and an
        // endless stream (`< /dev/zero`) must not be read into memory.
        constexpr std::size_t max_stdin = retcon::max_join_token_text + 4096;
        text.assign(max_stdin + 1, '\0');
        std::cin.read(text.data(), static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(std::cin.gcount()));
        if (text.size() > max_stdin)
            return fail(exit_code::usage,
                        "standard input holds more than " + std::to_string(max_stdin) + " bytes: not a join token");
        const auto first = text.find_first_not_of(" \t\r\n");
        const auto last = text.find_last_not_of(" \t\r\n");
        text = first == std::string::npos ? std::string{} : text.substr(first, last - first + 1);
    }
    auto bytes = retcon::token_from_text(text);
    if (!bytes) return fail(exit_code::usage, bytes.message());
    auto token = retcon::decode_token(*bytes);
    if (!token) return fail(exit_code::usage, "malformed join token: " + token.message());
    const std::uint64_t now = now_arg.value_or(wall_clock_now());
    print_token(*token, bytes->size(), now);
    if (!public_path) return status(exit_code::ok);

    auto key = retcon::read_verify_key(*public_path);
    if (!key) return fail(exit_code::keys, key.message());
    retcon::token_verifier_options options;
    options.fleet = fleet.value_or(token->fleet);
    retcon::token_verifier verifier{{*key}, options};
    const auto out = verifier.verify(*bytes, now);
    if (out.ok) {
        std::printf("verifies: key %u, fleet %s, at %llu (clock skew allowed: %u s)\n", token->key_id,
                    retcon::quoted_text(options.fleet).c_str(), static_cast<unsigned long long>(now),
                    options.clock_skew_s);
        return status(exit_code::ok);
    }
    std::printf("refused (%s): %s\n", retcon::to_string(out.refusal), out.message.c_str());
    return status(exit_code::refused);
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app{"retcon-token: make signing keys, issue join tokens and inspect them (docs/join-tokens.md)"};
    app.footer(retcon::tools::exit_code_help(exit_codes, 8) + "\n");
    app.require_subcommand(1);
    app.set_version_flag("--version", std::to_string(retcon::version.major) + "." +
                                          std::to_string(retcon::version.minor) + "." +
                                          std::to_string(retcon::version.patch));

    std::uint32_t key_id = 0;
    std::string secret_path, public_path;
    bool force = false;
    auto *keygen =
        app.add_subcommand("keygen", "make an Ed25519 key pair: a signing key (issuers) and a verify key (servers)");
    keygen->add_option("--key-id", key_id, "the key's id (tokens name it; servers pick the key by it)")->required();
    keygen->add_option("--secret", secret_path, "signing key file to write (0600)")->required();
    keygen->add_option("--public", public_path, "verify key file to write")->required();
    keygen->add_flag("--force", force, "replace existing key files");

    issue_args ia;
    auto *issue = app.add_subcommand("issue", "sign a join token and print its text form on stdout");
    issue->add_option("--secret", ia.secret, "signing key file")->required();
    issue->add_option("--match", ia.match_id, "match id, 1..64 of [A-Za-z0-9._-]")->required();
    auto *slot = issue->add_option("--slot", ia.slot, "player slot, below --players");
    auto *spectator = issue->add_flag("--spectator", ia.spectator, "a spectator's token (no slot)");
    slot->excludes(spectator);
    issue->add_option("--player-id", ia.player_id, "the lobby's player id (nonzero; required with --slot)");
    issue->add_option("--name", ia.name, "player name, at most 32 bytes");
    issue->add_option("--fleet", ia.fleet, "the fleet (or server) the token is for")->required();
    issue->add_option("--players", ia.players, "player slots of the match, 1..32")->required();
    issue->add_option("--tick", ia.tick, "tick rate in Hz, 1..1000")->required();
    issue->add_option("--seed", ia.seed, "the match's seed")->required();
    issue->add_option("--settings", ia.settings, "game-defined text, at most 256 bytes");
    issue->add_option("--ttl", ia.ttl, "seconds the token is valid (keep it short: minutes)")->required();
    issue->add_option("--now", ia.now, "issue time, unix seconds (default: the clock)");

    std::string token_text;
    std::optional<std::string> inspect_public, inspect_fleet;
    std::optional<std::uint64_t> inspect_now;
    auto *inspect = app.add_subcommand("inspect", "print a token's fields; with --public, whether it verifies");
    inspect->add_option("TOKEN", token_text, "the token's text form, or - to read it from stdin")->required();
    auto *inspect_public_opt =
        inspect->add_option("--public", inspect_public, "verify key file: check the signature, times and fleet");
    inspect->add_option("--fleet", inspect_fleet, "with --public: the server's fleet (default: the token's own)")
        ->needs(inspect_public_opt);
    inspect->add_option("--now", inspect_now, "the time to check against, unix seconds (default: the clock)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        (void)app.exit(e);
        return status(exit_code::usage);
    }
    if (keygen->parsed()) return cmd_keygen(key_id, secret_path, public_path, force);
    if (issue->parsed()) return cmd_issue(ia);
    if (inspect->parsed()) return cmd_inspect(token_text, inspect_public, inspect_fleet, inspect_now);
    return status(exit_code::usage);
}
