#include <catch2/catch.hpp>

#include <retcon/host/join_token.hpp>

#include <common/bytes.hpp>
#include <common/temp_dir.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <string>

#include <sys/stat.h>
#include <sys/wait.h>

using namespace retcon;
using namespace retcon::test;

namespace {

constexpr std::uint64_t t0 = 1'700'000'000; // issued_at of the sample tokens
constexpr std::uint64_t ttl = 300;

join_token sample_token() {
    join_token t;
    t.role = token_role::player;
    t.issued_at = t0;
    t.expires_at = t0 + ttl;
    t.fleet = "eu-1";
    t.match_id = "m-1";
    t.slot = 1;
    t.player_id = 42;
    t.player_name = "ann";
    t.params.players = 2;
    t.params.tick_hz = 60;
    t.params.seed = 9;
    t.params.settings = "map=x";
    return t;
}

const signing_key &key7() {
    static const signing_key k = generate_signing_key(7);
    return k;
}

std::vector<std::byte> sign(const join_token &t, const signing_key &k = key7()) {
    auto bytes = sign_token(t, k);
    INFO(bytes.message());
    REQUIRE(bytes.ok());
    return *bytes;
}

token_verifier_options fleet(std::string name) {
    token_verifier_options o;
    o.fleet = std::move(name);
    return o;
}

token_verifier verifier_for(const signing_key &k = key7(), token_verifier_options o = fleet("eu-1")) {
    return token_verifier{{public_key_of(k)}, std::move(o)};
}

/// Byte offsets of the sample token's fields (docs/join-tokens.md, "Byte format").
struct layout {
    std::size_t version = 4, role = 5, key_id = 6, issued_at = 10, expires_at = 18, nonce = 26, fleet_len = 42;
    std::size_t match_len, slot, player_id, name_len, players, tick_hz, seed, settings_len, signature;
    explicit layout(const join_token &t) {
        match_len = fleet_len + 1 + t.fleet.size();
        slot = match_len + 1 + t.match_id.size();
        player_id = slot + 1;
        name_len = player_id + 8;
        players = name_len + 1 + t.player_name.size();
        tick_hz = players + 1;
        seed = tick_hz + 2;
        settings_len = seed + 8;
        signature = settings_len + 2 + t.params.settings.size();
    }
};

std::string field_error(const std::vector<std::byte> &bytes) {
    auto d = decode_token(bytes);
    return d ? std::string{"(decodes)"} : d.message();
}

} // namespace

TEST_CASE("join tokens: sign and decode round trip, every signing gets its own nonce", "[host][token]") {
    const auto t = sample_token();
    const auto a = sign(t);
    const auto b = sign(t);
    CHECK(a.size() == min_join_token_bytes - 1 + t.fleet.size() + t.match_id.size() + t.player_name.size() +
                          t.params.settings.size());
    CHECK(a != b);

    auto da = decode_token(a);
    REQUIRE(da);
    CHECK(da->key_id == 7);
    CHECK(da->nonce != std::array<std::byte, 16>{});
    auto expect = t;
    expect.key_id = 7;
    expect.nonce = da->nonce;
    CHECK(*da == expect);
    CHECK(decode_token(b)->nonce != da->nonce);

    // A spectator, and a token of exactly max_join_token_bytes.
    auto s = sample_token();
    s.role = token_role::spectator;
    s.slot = spectator_slot;
    s.player_id = 0;
    s.player_name.clear();
    auto ds = decode_token(sign(s));
    REQUIRE(ds);
    CHECK(ds->role == token_role::spectator);
    CHECK(ds->slot == 0xff);

    auto big = sample_token();
    big.fleet = std::string(64, 'f');
    big.match_id = std::string(64, 'm');
    big.player_name = std::string(32, 'n');
    big.params.settings = std::string(max_join_token_bytes - (min_join_token_bytes - 1) - 64 - 64 - 32, 's');
    const auto full = sign(big);
    CHECK(full.size() == max_join_token_bytes);
    auto dbig = decode_token(full);
    REQUIRE(dbig);
    CHECK(dbig->params == big.params);

    big.params.settings += 's';
    const auto over = sign_token(big, key7());
    REQUIRE_FALSE(over);
    CHECK(over.code() == errc::too_large);
    CHECK_THAT(over.message(), Catch::Contains("would be 513 bytes, more than 512"));
}

TEST_CASE("join tokens: a valid token verifies, the refusals say why", "[host][token]") {
    auto v = verifier_for();
    const auto bytes = sign(sample_token());
    const auto ok = v.verify(bytes, t0 + 10);
    INFO(ok.message);
    REQUIRE(ok.ok);
    CHECK(ok.ok->first_use);
    CHECK(ok.ok->token.match_id == "m-1");
    CHECK(ok.ok->token.player_id == 42);

    SECTION("missing") {
        const auto o = v.verify({}, t0);
        CHECK_FALSE(o.ok);
        CHECK(o.refusal == token_refusal::missing);
        CHECK(o.message == "no join token (this server admits players by token only)");
    }
    SECTION("truncated at every length") {
        for (std::size_t n = 1; n < bytes.size(); ++n) {
            const std::vector<std::byte> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
            const auto o = v.verify(cut, t0 + 10);
            INFO("length " << n << ": " << o.message);
            CHECK_FALSE(o.ok);
            CHECK(o.refusal == token_refusal::malformed);
            if (n >= 4) CHECK_THAT(o.message, Catch::Contains("truncated"));
        }
    }
    SECTION("one byte too many") {
        auto longer = bytes;
        longer.push_back(std::byte{0});
        const auto o = v.verify(longer, t0 + 10);
        CHECK(o.refusal == token_refusal::malformed);
        CHECK_THAT(o.message, Catch::Contains("1 bytes after the signature"));
    }
    SECTION("a flipped bit anywhere is refused; in the signed body it is a forgery") {
        std::set<token_refusal> seen;
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            auto bad = bytes;
            bad[i] ^= std::byte{0x01};
            const auto o = v.verify(bad, t0 + 10);
            INFO("byte " << i << ": " << o.message);
            REQUIRE_FALSE(o.ok);
            CHECK((o.refusal == token_refusal::malformed || o.refusal == token_refusal::forged ||
                   o.refusal == token_refusal::unknown_key));
            seen.insert(o.refusal);
        }
        CHECK(seen.count(token_refusal::forged) == 1);

        const layout at{sample_token()};
        auto body = bytes;
        body[at.seed] ^= std::byte{0x80}; // still decodes: only the signature can tell
        const auto forged = v.verify(body, t0 + 10);
        CHECK(forged.refusal == token_refusal::forged);
        CHECK(forged.message == "join token signature does not verify with key 7 (forged or corrupted)");

        auto sig = bytes;
        sig[at.signature + 10] ^= std::byte{0x04};
        CHECK(v.verify(sig, t0 + 10).refusal == token_refusal::forged);
    }
    SECTION("unknown key") {
        const auto k9 = generate_signing_key(9);
        token_verifier two{{public_key_of(generate_signing_key(4)), public_key_of(generate_signing_key(3))},
                           fleet("eu-1")};
        const auto o = two.verify(sign(sample_token(), k9), t0 + 10);
        CHECK(o.refusal == token_refusal::unknown_key);
        CHECK(o.message == "join token signed with unknown key 9 (this server accepts keys 3, 4)");
        token_verifier none{{}, fleet("eu-1")};
        CHECK(none.verify(bytes, t0).message == "join token signed with unknown key 7 (this server accepts no keys)");
    }
    SECTION("a key with the right id but other key material: forged") {
        const auto impostor = generate_signing_key(7);
        const auto o = v.verify(sign(sample_token(), impostor), t0 + 10);
        CHECK(o.refusal == token_refusal::forged);
    }
    SECTION("expiry, with the clock skew each way") {
        auto fresh = verifier_for();
        CHECK(fresh.verify(bytes, t0 + ttl + 30).ok); // within the skew
        const auto late = fresh.verify(bytes, t0 + ttl + 31);
        CHECK_FALSE(late.ok);
        CHECK(late.refusal == token_refusal::expired);
        CHECK(late.message == "join token expired 31 s ago (clock skew allowed: 30 s)");
        const auto later = fresh.verify(bytes, t0 + ttl + 42);
        CHECK(later.message == "join token expired 42 s ago (clock skew allowed: 30 s)");

        auto early = verifier_for();
        CHECK(early.verify(bytes, t0 - 30).ok);
        const auto too_early = early.verify(bytes, t0 - 31);
        CHECK(too_early.refusal == token_refusal::not_yet_valid);
        CHECK_THAT(too_early.message, Catch::Contains("not valid for another 31 s (clock skew allowed: 30 s)"));

        token_verifier_options strict = fleet("eu-1");
        strict.clock_skew_s = 0;
        auto exact = verifier_for(key7(), strict);
        CHECK(exact.verify(bytes, t0 + ttl).ok);
        CHECK(exact.verify(bytes, t0 + ttl + 1).refusal == token_refusal::expired);
        CHECK(exact.verify(bytes, t0 - 1).refusal == token_refusal::not_yet_valid);
    }
    SECTION("wrong fleet") {
        auto us = verifier_for(key7(), fleet("us-2"));
        const auto o = us.verify(bytes, t0 + 10);
        CHECK(o.refusal == token_refusal::wrong_fleet);
        CHECK(o.message == "join token is for fleet 'eu-1', this server is 'us-2'");
    }
}

TEST_CASE("join tokens: decoding names the field and offset of every out-of-range value", "[host][token]") {
    const auto t = sample_token();
    const auto good = sign(t);
    const layout at{t};
    REQUIRE(decode_token(good));

    struct patch {
        const char *what;
        std::function<void(std::vector<std::byte> &)> apply;
        const char *expect;
        errc code = errc::corrupt;
    };
    const std::vector<patch> patches{
        {"magic", [](auto &b) { b[0] = std::byte{'X'}; }, "not a join token", errc::bad_magic},
        {"version", [&](auto &b) { b[at.version] = std::byte{2}; }, "format version 2, this build reads version 1",
         errc::bad_version},
        {"role", [&](auto &b) { b[at.role] = std::byte{2}; }, "'role' at byte 5: 2 is neither 0 (player) nor 1"},
        {"expires_at == issued_at", [&](auto &b) { put<std::uint64_t>(b, at.expires_at, t0); },
         "'expires_at' at byte 18: 1700000000 is not after issued_at"},
        {"fleet too long", [&](auto &b) { b[at.fleet_len] = std::byte{65}; },
         "'fleet' at byte 42: length 65 exceeds 64"},
        {"fleet control character", [&](auto &b) { b[at.fleet_len + 1] = std::byte{'\n'}; },
         "'fleet' at byte 42: '\\x0au-1' is not printable ASCII"},
        {"match id empty", [&](auto &b) { b[at.match_len] = std::byte{0}; }, "'match_id' at byte 47: '' is empty"},
        {"match id charset", [&](auto &b) { b[at.match_len + 2] = std::byte{' '}; },
         "'match_id' at byte 47: 'm 1' has a character outside [A-Za-z0-9._-]"},
        {"player slot >= players", [&](auto &b) { b[at.slot] = std::byte{2}; },
         "'slot' at byte 51: 2 of 2 is not below the match's player count"},
        {"player with the spectator slot", [&](auto &b) { b[at.slot] = std::byte{0xff}; },
         "'slot' at byte 51: 255 of 2"},
        {"spectator with a player slot", [&](auto &b) { b[at.role] = std::byte{1}; },
         "'slot' at byte 51: 1 of 2 is not 255 (a spectator's slot)"},
        {"player id 0", [&](auto &b) { put<std::uint64_t>(b, at.player_id, 0); },
         "'player_id' at byte 52: 0 is not allowed for a player (must be nonzero)"},
        {"name too long", [&](auto &b) { b[at.name_len] = std::byte{33}; },
         "'player_name' at byte 60: length 33 exceeds 32"},
        {"name control character", [&](auto &b) { b[at.name_len + 1] = std::byte{0x7f}; },
         "'player_name' at byte 60: '\\x7fnn' has a control character"},
        {"players 0", [&](auto &b) { b[at.players] = std::byte{0}; },
         "'players' at byte 64: 0 is out of range (1..32)"},
        {"players 33", [&](auto &b) { b[at.players] = std::byte{33}; }, "'players' at byte 64: 33 is out of range"},
        {"tick 0", [&](auto &b) { put<std::uint16_t>(b, at.tick_hz, 0); },
         "'tick_hz' at byte 65: 0 is out of range (1..1000)"},
        {"tick 1001", [&](auto &b) { put<std::uint16_t>(b, at.tick_hz, 1001); },
         "'tick_hz' at byte 65: 1001 is out of range"},
        {"settings too long", [&](auto &b) { put<std::uint16_t>(b, at.settings_len, 257); },
         "'settings' at byte 75: length 257 exceeds 256"},
        {"settings longer than the token", [&](auto &b) { put<std::uint16_t>(b, at.settings_len, 200); },
         "'settings' at byte 77: needs 200 bytes, only 69 left (truncated)", errc::truncated},
        {"trailing byte", [](auto &b) { b.push_back(std::byte{0}); }, "'end' at byte 146: 1 bytes after the signature"},
        {"too large", [](auto &b) { b.resize(max_join_token_bytes + 1); }, "join token is 513 bytes, more than 512",
         errc::too_large},
    };
    REQUIRE(at.signature + 64 == good.size());
    REQUIRE(good.size() == 146);
    for (const auto &p : patches) {
        auto bad = good;
        p.apply(bad);
        auto d = decode_token(bad);
        INFO(p.what << ": " << d.message());
        REQUIRE_FALSE(d);
        CHECK(d.code() == p.code);
        CHECK_THAT(d.message(), Catch::Contains(p.expect));
    }
    CHECK_THAT(field_error({}), Catch::Contains("empty"));
    CHECK_THAT(field_error({std::byte{'R'}, std::byte{'C'}}), Catch::Contains("not a join token"));
}

TEST_CASE("join tokens: sign_token refuses fields out of range, naming the field", "[host][token]") {
    struct bad_field {
        const char *what;
        std::function<void(join_token &)> apply;
        const char *expect;
    };
    const std::vector<bad_field> cases{
        {"role", [](auto &t) { t.role = static_cast<token_role>(5); }, "role 5 is neither"},
        {"times", [](auto &t) { t.expires_at = t.issued_at; }, "expires_at 1700000000 is not after issued_at"},
        {"fleet", [](auto &t) { t.fleet = std::string(65, 'f'); }, "fleet"},
        {"fleet charset", [](auto &t) { t.fleet = "eu\t1"; }, "fleet 'eu\\x091' is not printable ASCII"},
        {"match empty", [](auto &t) { t.match_id.clear(); }, "match_id '' is empty"},
        {"match long", [](auto &t) { t.match_id = std::string(65, 'm'); }, "match_id"},
        {"match charset", [](auto &t) { t.match_id = "a/b"; }, "match_id 'a/b' has a character outside"},
        {"slot", [](auto &t) { t.slot = 2; }, "slot 2 of 2 is not below the match's player count"},
        {"spectator slot", [](auto &t) { t.role = token_role::spectator; }, "slot 1 of 2 is not 255"},
        {"player id", [](auto &t) { t.player_id = 0; }, "player_id 0 is not allowed for a player"},
        {"name", [](auto &t) { t.player_name = std::string(33, 'n'); }, "player_name"},
        {"players 0", [](auto &t) { t.params.players = 0; }, "players 0 is out of range (1..32)"},
        {"players 33", [](auto &t) { t.params.players = 33; }, "players 33 is out of range"},
        {"tick", [](auto &t) { t.params.tick_hz = 1001; }, "tick_hz 1001 is out of range (1..1000)"},
        {"settings", [](auto &t) { t.params.settings = std::string(257, 's'); },
         "settings (257 bytes) is longer than 256"},
    };
    for (const auto &c : cases) {
        auto t = sample_token();
        c.apply(t);
        const auto r = sign_token(t, key7());
        INFO(c.what << ": " << r.message());
        REQUIRE_FALSE(r);
        CHECK(r.code() == errc::invalid_argument);
        CHECK_THAT(r.message(), Catch::StartsWith("cannot sign join token: ") && Catch::Contains(c.expect));
    }
    const auto empty = sign_token(sample_token(), signing_key{3, {}});
    REQUIRE_FALSE(empty);
    CHECK_THAT(empty.message(), Catch::Contains("signing key 3 is empty"));
}

TEST_CASE("join tokens: hostile bytes never verify and never crash", "[host][token]") {
    auto v = verifier_for();
    const auto good = sign(sample_token());
    std::mt19937_64 rng{12345};
    for (int i = 0; i < 2000; ++i) {
        std::vector<std::byte> b;
        if (i % 2 == 0) { // noise with the right magic and version
            b.resize(rng() % (max_join_token_bytes + 40));
            for (auto &x : b) x = static_cast<std::byte>(rng());
            if (b.size() >= 5) std::copy_n(good.begin(), 5, b.begin());
        } else { // the good token with a few random bytes changed
            b = good;
            for (int k = 0; k < 3; ++k) b[rng() % b.size()] = static_cast<std::byte>(rng());
            if (b == good) continue;
        }
        const auto o = v.verify(b, t0 + 10);
        REQUIRE_FALSE(o.ok);
        CHECK_FALSE(o.message.empty());
    }
}

TEST_CASE("join tokens: key rotation accepts the old and new key, then only the new", "[host][token]") {
    const auto k3 = generate_signing_key(3);
    const auto k4 = generate_signing_key(4);
    token_verifier v{{public_key_of(k3), public_key_of(k4)}, fleet("eu-1")};
    const auto old_token = sign(sample_token(), k3);
    const auto new_token = sign(sample_token(), k4);
    CHECK(v.verify(old_token, t0).ok);
    CHECK(v.verify(new_token, t0).ok);

    v.set_keys({public_key_of(k4)});
    REQUIRE(v.keys().size() == 1);
    const auto o = v.verify(old_token, t0);
    CHECK(o.refusal == token_refusal::unknown_key);
    CHECK(o.message == "join token signed with unknown key 3 (this server accepts key 4)");
    const auto again = v.verify(new_token, t0);
    REQUIRE(again.ok);
    CHECK_FALSE(again.ok->first_use); // the replay cache survives a rotation
}

TEST_CASE("join tokens: replay cache marks reuse, forgets tokens once expired, and is bounded", "[host][token]") {
    auto long_lived = sample_token();
    long_lived.expires_at = t0 + 3600;

    SECTION("a second verification is not a first use") {
        auto v = verifier_for();
        const auto a = sign(sample_token());
        const auto b = sign(sample_token()); // the same fields, another nonce: another token
        const auto first = v.verify(a, t0);
        REQUIRE(first.ok);
        CHECK(first.ok->first_use);
        CHECK(v.cached() == 1);
        const auto second = v.verify(a, t0 + 5);
        REQUIRE(second.ok);
        CHECK_FALSE(second.ok->first_use);
        CHECK(second.ok->token == first.ok->token);
        CHECK(v.cached() == 1);
        const auto other = v.verify(b, t0 + 5);
        REQUIRE(other.ok);
        CHECK(other.ok->first_use);
        CHECK(v.cached() == 2);
        // A host that refuses the admission after all releases the token: the retry is a first use.
        v.release(second.ok->token);
        const auto retry = v.verify(a, t0 + 6);
        REQUIRE(retry.ok);
        CHECK(retry.ok->first_use);
        CHECK(v.cached() == 2);
        CHECK_FALSE(v.verify(a, t0 + 7).ok->first_use);
        // A refused token is not recorded.
        auto us = verifier_for(key7(), fleet("us-2"));
        CHECK_FALSE(us.verify(a, t0).ok);
        CHECK(us.cached() == 0);
    }
    SECTION("expired entries are purged as time moves; an expired token stays refused") {
        auto v = verifier_for();
        const auto a = sign(sample_token());
        const auto keep = sign(long_lived);
        REQUIRE(v.verify(a, t0).ok);
        REQUIRE(v.verify(keep, t0).ok);
        CHECK(v.cached() == 2);
        // At expires_at + skew the token is still good, so its entry stays.
        CHECK_FALSE(v.verify(keep, t0 + ttl + 30).ok->first_use);
        CHECK(v.cached() == 2);
        CHECK_FALSE(v.verify(keep, t0 + ttl + 31).ok->first_use);
        CHECK(v.cached() == 1);
        const auto late = v.verify(a, t0 + ttl + 31);
        CHECK(late.refusal == token_refusal::expired); // forgotten, but not acceptable again

        for (int i = 0; i < 40; ++i) REQUIRE(v.verify(sign(sample_token()), t0 + 1).ok);
        CHECK(v.cached() == 41);
        v.purge(t0 + ttl + 30);
        CHECK(v.cached() == 41);
        // Each verification purges a few: the cache shrinks call by call, no call scans it all.
        const std::size_t before = v.cached();
        REQUIRE(v.verify(keep, t0 + ttl + 31).ok);
        CHECK(v.cached() < before);
        CHECK(v.cached() > 1);
        for (int i = 0; i < 10; ++i) REQUIRE(v.verify(keep, t0 + ttl + 31).ok);
        CHECK(v.cached() == 1);

        for (int i = 0; i < 5; ++i) REQUIRE(v.verify(sign(sample_token()), t0 + 1).ok);
        v.purge(t0 + ttl + 31);
        CHECK(v.cached() == 1);
    }
    SECTION("a full cache refuses new tokens, still accepts known ones, and frees up as they expire") {
        token_verifier_options o = fleet("eu-1");
        o.max_cached = 2;
        auto v = verifier_for(key7(), o);
        const auto a = sign(sample_token());
        const auto b = sign(sample_token());
        const auto c = sign(long_lived);
        REQUIRE(v.verify(a, t0).ok);
        REQUIRE(v.verify(b, t0).ok);
        const auto full = v.verify(c, t0);
        CHECK_FALSE(full.ok);
        CHECK(full.refusal == token_refusal::cache_full);
        CHECK_THAT(full.message, Catch::Contains("replay cache is full (2 unexpired tokens"));
        const auto reuse = v.verify(a, t0 + 1);
        REQUIRE(reuse.ok);
        CHECK_FALSE(reuse.ok->first_use);
        // Once a and b are past expiry + skew they make room.
        const auto later = v.verify(c, t0 + ttl + 31);
        INFO(later.message);
        REQUIRE(later.ok);
        CHECK(later.ok->first_use);
        CHECK(v.cached() == 1);
    }
}

TEST_CASE("join tokens: key files round trip, the secret one is 0600, damage is named", "[host][token]") {
    temp_dir dir;
    const auto k = generate_signing_key(12);
    const auto pub = public_key_of(k);
    CHECK(pub.key_id == 12);
    CHECK(pub.public_key != std::array<std::byte, 32>{});

    const mode_t old_mask = ::umask(077); // the public file is 0644 whatever the umask
    REQUIRE(write_key_file(dir / "s.key", k));
    REQUIRE(write_key_file(dir / "p.key", pub));
    ::umask(old_mask);
    struct stat st {};
    REQUIRE(::stat((dir / "s.key").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    REQUIRE(::stat((dir / "p.key").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0644);
    CHECK(dir.entries() == std::vector<std::string>{"p.key", "s.key"}); // no temporary files left

    auto rk = read_signing_key(dir / "s.key");
    INFO(rk.message());
    REQUIRE(rk);
    CHECK(rk->key_id == 12);
    CHECK(rk->secret == k.secret);
    auto rp = read_verify_key(dir / "p.key");
    REQUIRE(rp);
    CHECK(*rp == pub);
    token_verifier v{{*rp}, fleet("eu-1")};
    CHECK(v.verify(sign(sample_token(), *rk), t0).ok);

    // Replacing a key: the new one is read back, still 0600.
    const auto k2 = generate_signing_key(13);
    REQUIRE(write_key_file(dir / "s.key", k2));
    CHECK(read_signing_key(dir / "s.key")->key_id == 13);
    REQUIRE(::stat((dir / "s.key").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);

    const auto text = [&](const std::string &name, const std::string &content) {
        std::ofstream(dir / name, std::ios::binary) << content;
        return dir / name;
    };
    const std::string good_line = [&] {
        std::ifstream in(dir / "s.key");
        std::string l;
        std::getline(in, l);
        return l;
    }();
    REQUIRE(good_line.size() == std::string("retcon-signing-key 1 13 ").size() + 128);

    struct bad_file {
        const char *what;
        std::string content;
        const char *expect;
        errc code;
    };
    std::string flipped_public = good_line;
    flipped_public.back() = flipped_public.back() == '0' ? '1' : '0';
    std::string bad_hex = good_line;
    bad_hex[30] = 'z';
    const std::vector<bad_file> cases{
        {"garbage", "hello world\n", "not a retcon key file", errc::bad_magic},
        {"empty", "", "not a retcon key file", errc::bad_magic},
        {"version", "retcon-signing-key 2 13 00\n", "key file version '2', this build reads version 1",
         errc::bad_version},
        {"key id", "retcon-signing-key 1 x13 00\n", "key id 'x13' is not a number", errc::corrupt},
        {"key id too big", "retcon-signing-key 1 4294967296 00\n", "key id '4294967296'", errc::corrupt},
        {"no key", "retcon-signing-key 1 13\n", "the key is missing", errc::truncated},
        {"short", good_line.substr(0, good_line.size() - 2), "has 126 hexadecimal digits, 128 expected", errc::corrupt},
        {"bad hex", bad_hex, "the key is not hexadecimal", errc::corrupt},
        {"extra", good_line + " more", "unexpected text after the key", errc::corrupt},
        {"public half", flipped_public, "public half does not match its secret half", errc::corrupt},
        {"too big", std::string(2000, 'a'), "holds more than 1024 bytes", errc::corrupt},
    };
    for (const auto &c : cases) {
        const auto path = text("bad.key", c.content);
        const auto r = read_signing_key(path);
        INFO(c.what << ": " << r.message());
        REQUIRE_FALSE(r);
        CHECK(r.code() == c.code);
        CHECK_THAT(r.message(), Catch::StartsWith("signing key file " + path.string()) && Catch::Contains(c.expect));
    }

    const auto missing = read_signing_key(dir / "none.key");
    CHECK(missing.code() == errc::not_found);
    CHECK(missing.message() == "signing key file " + (dir / "none.key").string() + " does not exist");
    const auto kind1 = read_signing_key(dir / "p.key");
    CHECK(kind1.code() == errc::bad_magic);
    CHECK_THAT(kind1.message(),
               Catch::Contains("p.key: is a verify (public) key file; a signing (secret) key file is needed"));
    const auto kind2 = read_verify_key(dir / "s.key");
    CHECK_THAT(kind2.message(),
               Catch::Contains("s.key: is a signing (secret) key file; a verify (public) key file is needed"));
    const auto not_file = read_verify_key(dir.path());
    CHECK_THAT(not_file.message(), Catch::Contains("is not a regular file"));
    // A named pipe nobody writes to is refused at once (opening it plainly waits for a writer).
    const auto pipe = dir / "pipe.key";
    REQUIRE(::mkfifo(pipe.c_str(), 0600) == 0);
    const auto fifo = read_verify_key(pipe);
    CHECK(fifo.code() == errc::io);
    CHECK_THAT(fifo.message(), Catch::Contains("pipe.key is not a regular file"));
    const auto short_public = read_verify_key(text("p2.key", "retcon-verify-key 1 4 abcd\n"));
    CHECK_THAT(short_public.message(), Catch::Contains("has 4 hexadecimal digits, 64 expected"));

    const auto nowhere = write_key_file(dir / "no-such-dir" / "s.key", k);
    REQUIRE_FALSE(nowhere);
    CHECK(nowhere.code() == errc::io);
    CHECK_THAT(nowhere.message(), Catch::Contains("no-such-dir/s.key") && Catch::Contains("cannot create"));
}

TEST_CASE("join tokens: the text form is base64url without padding, anything else is refused", "[host][token]") {
    const auto bytes = sign(sample_token());
    const auto text = token_to_text(bytes);
    CHECK(text.size() == 195); // 146 bytes
    CHECK(text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
          std::string::npos);
    auto back = token_from_text(text);
    REQUIRE(back);
    CHECK(*back == bytes);

    std::mt19937 rng{7};
    for (std::size_t n = 1; n < 40; ++n) {
        std::vector<std::byte> b(n);
        for (auto &x : b) x = static_cast<std::byte>(rng());
        const auto t = token_to_text(b);
        CHECK(t.find('=') == std::string::npos);
        auto r = token_from_text(t);
        REQUIRE(r);
        CHECK(*r == b);
    }

    const auto refused = [](const std::string &t, const char *expect) {
        const auto r = token_from_text(t);
        INFO(t << ": " << r.message());
        REQUIRE_FALSE(r);
        CHECK_THAT(r.message(), Catch::Contains(expect));
    };
    refused(text + "=", "'=' at character 195 (the text form has no padding)");
    refused(token_to_text(std::vector<std::byte>(4)) + "==", "no padding"); // 4 bytes: standard base64 pads "=="
    refused(text.substr(0, 10) + "+" + text.substr(11), "'+' at character 10 (the text form is base64url");
    refused(text.substr(0, 10) + "/" + text.substr(11), "'/' at character 10");
    refused(text + "\n", "'\\x0a' at character 195");
    refused(" " + text, "' ' at character 0");
    refused("", "empty");
    refused(std::string(max_join_token_text + 1, 'A'), "684 characters, more than 683");
    refused("AAAAA", "not canonical"); // 4n+1 characters encode no whole byte
    // 146 bytes leave 2 unused low bits in the last character: they must be zero.
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    auto loose = text;
    loose.back() = alphabet[alphabet.find(loose.back()) | 1];
    refused(loose, "not canonical");
}

TEST_CASE("join tokens: the example in docs/join-tokens.md decodes and verifies", "[host][token]") {
    // Pins the byte format: a reimplementation that reads this token and checks it with this key
    // agrees with this one.
    const std::string text =
        "UkNKVAEAAQAAAADxU2UAAAAAWPNTZQAAAAA_9OdYOa4JQA-"
        "Ea5L5qP4wBGV1LTEJZHVlbC0wMDQyAOkDAAAAAAAAA2FubgI8AAcAAAAAAAAACgBtYX"
        "A9Y2FueW9uVCNmqBfsclCc9Ik_BSypXARrEypYF2wFybmOuqKi8e9Ro4GnS7sF15skAuG-Wb81U8TyY6Wq0OvxhwcOWeJWBg";
    const std::string public_hex = "2c09077be0f0e94c06fe16d5277347e88410986e2078e0a205c0bf777ac93e7d";
    temp_dir dir;
    std::ofstream(dir / "p.key") << "retcon-verify-key 1 1 " << public_hex << "\n";
    const auto key = read_verify_key(dir / "p.key");
    REQUIRE(key);

    const auto bytes = token_from_text(text);
    REQUIRE(bytes);
    CHECK(bytes->size() == 157);
    CHECK(token_to_text(*bytes) == text);
    const auto t = decode_token(*bytes);
    REQUIRE(t);
    CHECK(t->role == token_role::player);
    CHECK(t->key_id == 1);
    CHECK(t->issued_at == 1700000000);
    CHECK(t->expires_at == 1700000600);
    CHECK(std::to_integer<int>(t->nonce[0]) == 0x3f);
    CHECK(std::to_integer<int>(t->nonce[15]) == 0x30);
    CHECK(t->fleet == "eu-1");
    CHECK(t->match_id == "duel-0042");
    CHECK(t->slot == 0);
    CHECK(t->player_id == 1001);
    CHECK(t->player_name == "ann");
    CHECK(t->params == match_params{2, 60, 7, "map=canyon"});

    token_verifier v{{*key}, fleet("eu-1")};
    const auto o = v.verify(*bytes, 1700000100);
    INFO(o.message);
    CHECK(o.ok);
    CHECK(v.verify(*bytes, 1700000631).refusal == token_refusal::expired);
}

TEST_CASE("join tokens: signing the example's fields writes the example's bytes", "[host][token]") {
    // Pins the encoder as the test above pins the decoder: every byte but the nonce (random per
    // signing) and the signature (it covers the nonce) is docs/join-tokens.md's example.
    const std::string text =
        "UkNKVAEAAQAAAADxU2UAAAAAWPNTZQAAAAA_9OdYOa4JQA-"
        "Ea5L5qP4wBGV1LTEJZHVlbC0wMDQyAOkDAAAAAAAAA2FubgI8AAcAAAAAAAAACgBtYX"
        "A9Y2FueW9uVCNmqBfsclCc9Ik_BSypXARrEypYF2wFybmOuqKi8e9Ro4GnS7sF15skAuG-Wb81U8TyY6Wq0OvxhwcOWeJWBg";
    const auto example = token_from_text(text);
    REQUIRE(example);
    auto fields = decode_token(*example);
    REQUIRE(fields);
    const auto signed_bytes = sign_token(*fields, generate_signing_key(1));
    REQUIRE(signed_bytes);
    REQUIRE(signed_bytes->size() == example->size());
    constexpr std::ptrdiff_t nonce_at = 26, nonce_end = 42, signature_at = 157 - 64;
    const auto same = [&](std::ptrdiff_t from, std::ptrdiff_t to) {
        return std::equal(example->begin() + from, example->begin() + to, signed_bytes->begin() + from);
    };
    CHECK(same(0, nonce_at));
    CHECK(same(nonce_end, signature_at));
    CHECK_FALSE(same(nonce_at, nonce_end)); // a fresh nonce (1 in 2^128 to collide)
}

TEST_CASE("join tokens: refusal names", "[host][token]") {
    CHECK(std::string{to_string(token_refusal::missing)} == "missing");
    CHECK(std::string{to_string(token_refusal::malformed)} == "malformed");
    CHECK(std::string{to_string(token_refusal::unknown_key)} == "unknown_key");
    CHECK(std::string{to_string(token_refusal::forged)} == "forged");
    CHECK(std::string{to_string(token_refusal::not_yet_valid)} == "not_yet_valid");
    CHECK(std::string{to_string(token_refusal::expired)} == "expired");
    CHECK(std::string{to_string(token_refusal::wrong_fleet)} == "wrong_fleet");
    CHECK(std::string{to_string(token_refusal::cache_full)} == "cache_full");
}

// The built retcon-token end to end. Needs the program's path as RETCON_TOKEN_TOOL (a compile
// definition of this suite, with the suite depending on retcon_token).
#ifdef RETCON_TOKEN_TOOL
namespace {

struct run_result {
    int status = -1;
    std::string out;
};

/// Runs retcon-token with @p args (no shell metacharacters in them), stdout captured, stderr
/// appended to it.
run_result run_tool(const std::string &args) {
    run_result r;
    const std::string cmd = std::string{RETCON_TOKEN_TOOL} + " " + args + " 2>&1";
    FILE *p = ::popen(cmd.c_str(), "r");
    REQUIRE(p);
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
    const int st = ::pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

} // namespace

TEST_CASE("retcon-token: keygen, issue and inspect end to end", "[host][token][tool]") {
    temp_dir dir;
    const std::string s = (dir / "s.key").string(), p = (dir / "p.key").string();
    const auto keygen = run_tool("keygen --key-id 5 --secret " + s + " --public " + p);
    INFO(keygen.out);
    REQUIRE(keygen.status == 0);
    struct stat st {};
    REQUIRE(::stat(s.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    CHECK(run_tool("keygen --key-id 5 --secret " + s + " --public " + p).status == 3); // never replaced silently

    const auto issued = run_tool("issue --secret " + s +
                                 " --match m-7 --slot 1 --player-id 99 --name bob --fleet eu-1"
                                 " --players 4 --tick 30 --seed 77 --settings mode=duel --ttl 120 --now 1700000000");
    INFO(issued.out);
    REQUIRE(issued.status == 0);
    const std::string token = issued.out.substr(0, issued.out.find('\n'));
    auto bytes = token_from_text(token);
    REQUIRE(bytes);
    auto t = decode_token(*bytes);
    REQUIRE(t);
    CHECK(t->key_id == 5);
    CHECK(t->match_id == "m-7");
    CHECK(t->slot == 1);
    CHECK(t->player_id == 99);
    CHECK(t->player_name == "bob");
    CHECK(t->params == match_params{4, 30, 77, "mode=duel"});
    CHECK(t->issued_at == 1700000000);
    CHECK(t->expires_at == 1700000120);
    auto pub = read_verify_key(p);
    REQUIRE(pub);
    token_verifier v{{*pub}, fleet("eu-1")};
    CHECK(v.verify(*bytes, 1700000060).ok);

    const auto ok = run_tool("inspect " + token + " --public " + p + " --now 1700000060");
    INFO(ok.out);
    CHECK(ok.status == 0);
    CHECK_THAT(ok.out, Catch::Contains("match id:    m-7") && Catch::Contains("settings:    'mode=duel' (9 bytes)") &&
                           Catch::Contains("verifies: key 5"));
    const auto expired = run_tool("inspect " + token + " --public " + p + " --now 1700000200");
    CHECK(expired.status == 1);
    CHECK_THAT(expired.out, Catch::Contains("refused (expired): join token expired 80 s ago"));
    const auto fleet_check = run_tool("inspect " + token + " --public " + p + " --fleet us-2 --now 1700000060");
    CHECK(fleet_check.status == 1);
    CHECK_THAT(fleet_check.out, Catch::Contains("this server is 'us-2'"));
    // A token on standard input is read; an endless stream is not read into memory.
    { std::ofstream{dir / "token.txt"} << "\n  " << token << "\n"; }
    const auto from_stdin = run_tool("inspect - --public " + p + " --now 1700000060 < " + (dir / "token.txt").string());
    INFO(from_stdin.out);
    CHECK(from_stdin.status == 0);
    CHECK_THAT(from_stdin.out, Catch::Contains("match id:    m-7"));
    const auto endless = run_tool("inspect - < /dev/zero");
    CHECK(endless.status == 2);
    CHECK_THAT(endless.out, Catch::Contains("standard input holds more than") && Catch::Contains("not a join token"));
    const auto malformed = run_tool("inspect " + token.substr(0, 60));
    CHECK(malformed.status == 2);
    CHECK_THAT(malformed.out, Catch::Contains("malformed join token"));
    const auto spectator_and_slot = run_tool("issue --secret " + s +
                                             " --match m --slot 1 --spectator --fleet f"
                                             " --players 2 --tick 60 --seed 1 --ttl 60");
    CHECK(spectator_and_slot.status == 2);
    const auto bad_players = run_tool("issue --secret " + s +
                                      " --match m --slot 1 --player-id 1 --fleet f"
                                      " --players 40 --tick 60 --seed 1 --ttl 60");
    CHECK(bad_players.status == 2);
    CHECK_THAT(bad_players.out, Catch::Contains("players 40 is out of range (1..32)"));
    const auto wrong_key = run_tool("issue --secret " + p +
                                    " --match m --spectator --fleet f --players 2 --tick 60"
                                    " --seed 1 --ttl 60");
    CHECK(wrong_key.status == 3);
    CHECK_THAT(wrong_key.out, Catch::Contains("is a verify (public) key file"));
}
#endif

TEST_CASE("join tokens: quoted_text shows any field as one quoted line", "[host][token]") {
    CHECK(quoted_text("ann") == "'ann'");
    CHECK(quoted_text("Zo\xc3\xab") == "'Zo\xc3\xab'"); // UTF-8 is fine in a name
    // Control characters, both quotes, backslashes and bytes that are not UTF-8 (docs/hosting.md, "Logs").
    CHECK(quoted_text("a'b\"c\\d\ne\xff") == "'a\\x27b\\x22c\\x5cd\\x0ae\\xff'");
}
