#include <catch2/catch.hpp>

#include <retcon/net/protocol.hpp>

#include <common/counting_allocator.hpp>

#include <bit>
#include <cstring>
#include <random>

using namespace retcon;
using namespace retcon::wire;

namespace {
std::vector<std::byte> bytes_of(std::initializer_list<int> v) {
    std::vector<std::byte> out;
    for (int x : v) out.push_back(static_cast<std::byte>(x));
    return out;
}

/// Every proper prefix of @p packet must be rejected by @p decode_fn.
template<class F>
void require_truncations_rejected(const std::vector<std::byte> &packet, F decode_fn) {
    for (std::size_t n = 0; n < packet.size(); ++n) {
        INFO("prefix of " << n << " of " << packet.size() << " bytes");
        REQUIRE_FALSE(decode_fn(std::span<const std::byte>(packet.data(), n)));
    }
}
/// A token whose bytes count up from @p first (not random: round trips compare bytes).
retcon::reconnect_token test_token(std::uint8_t first) {
    std::array<std::byte, retcon::reconnect_token::size> b{};
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::byte(static_cast<std::uint8_t>(first + i));
    return retcon::reconnect_token{b};
}
} // namespace

TEST_CASE("hello round-trips and rejects truncation", "[net][protocol]") {
    hello_msg h;
    h.schema_hash = 0x1122334455667788ull;
    h.input_layout_hash = 42;
    h.content_version = 7;
    h.input_size = 4;
    h.spectator = true;
    h.reconnect_token = test_token(99);
    h.name = "ada";
    for (int i = 0; i < 300; ++i) h.join_token.push_back(static_cast<std::byte>(i * 5));
    std::vector<std::byte> out;
    encode(h, out);
    hello_msg back;
    REQUIRE(decode(out, back));
    CHECK(back.join_token == h.join_token);
    CHECK(back.schema_hash == h.schema_hash);
    CHECK(back.input_layout_hash == 42);
    CHECK(back.content_version == 7);
    CHECK(back.input_size == 4);
    CHECK(back.spectator);
    CHECK(back.reconnect_token == test_token(99));
    CHECK(back.name == "ada");
    CHECK(back.semantics == simulation_semantics); // this build's, unless told otherwise
    CHECK(back.entity_bits == entity_handle_bits);
    require_truncations_rejected(out, [](std::span<const std::byte> b) {
        hello_msg m;
        return decode(b, m);
    });
    out.push_back(std::byte{0});
    const auto trailing = decode(out, back); // trailing garbage
    REQUIRE_FALSE(trailing);
    CHECK(trailing.code() == errc::corrupt);
    CHECK(trailing.err().offset == out.size() - 1);
}

TEST_CASE("hello: the simulation semantics and entity handle size follow the schema hash", "[net][protocol]") {
    hello_msg h;
    h.schema_hash = 0x1122334455667788ull;
    h.semantics = 0x0201;
    h.entity_bits = 64;
    h.input_layout_hash = 0x99;
    std::vector<std::byte> out;
    encode(h, out);
    // docs/protocol.md, "1 hello": u16 semantics at 11, u8 entity bits at 13, layout hash at 14.
    CHECK(out[11] == std::byte{0x01});
    CHECK(out[12] == std::byte{0x02});
    CHECK(out[13] == std::byte{64});
    CHECK(out[14] == std::byte{0x99});
    hello_msg back;
    REQUIRE(decode(out, back));
    CHECK(back.semantics == 0x0201);
    CHECK(back.entity_bits == 64);
    CHECK(back.schema_hash == h.schema_hash);
    CHECK(back.input_layout_hash == 0x99);

    back.name = "untouched";
    auto bad = out;
    bad[11] = bad[12] = std::byte{0}; // no build simulates with semantics 0
    auto r = decode(bad, back);
    CHECK(r.code() == errc::corrupt);
    CHECK(r.err().offset == 11);
    CHECK(std::string(r.err().what) == "simulation semantics 0");
    for (const int bits : {0, 31, 33, 48, 63, 65, 128}) {
        CAPTURE(bits);
        bad = out;
        bad[13] = static_cast<std::byte>(bits);
        r = decode(bad, back);
        CHECK(r.code() == errc::corrupt);
        CHECK(r.err().offset == 13);
        CHECK(std::string(r.err().what) == "entity handles neither 32 nor 64 bits");
    }
    bad[13] = std::byte{32};
    CHECK(decode(bad, back));
    CHECK(back.entity_bits == 32);
}

TEST_CASE("hello: a version 6 hello is refused by the version rule", "[net][protocol]") {
    // Version 6 had no semantics or handle size: its layout hash followed the schema hash.
    hello_msg h;
    h.name = "old";
    std::vector<std::byte> v6;
    encode(h, v6);
    v6.erase(v6.begin() + 11, v6.begin() + 14);
    v6[1] = std::byte{6};
    v6[2] = std::byte{0};
    hello_msg back;
    const auto r = decode(v6, back);
    CHECK(r.code() == errc::bad_version);
    CHECK(r.err().offset == 1);
    CHECK(peek_hello_version(v6) == 6);
    CHECK(version_refusal(peek_hello_version(v6)) == "protocol version 6, server speaks 7");
}

TEST_CASE("hello: a join token has at most 512 bytes", "[net][protocol]") {
    hello_msg h;
    h.join_token.assign(limits::max_join_token, std::byte{7});
    std::vector<std::byte> out;
    encode(h, out);
    hello_msg back;
    REQUIRE(decode(out, back));
    CHECK(back.join_token.size() == limits::max_join_token);
    // The encoder cuts a longer token (a host then refuses it as malformed)...
    h.join_token.push_back(std::byte{7});
    encode(h, out);
    REQUIRE(decode(out, back));
    CHECK(back.join_token.size() == limits::max_join_token);
    // ...and a decoder refuses a length above the limit, naming it, before reading the bytes.
    const std::size_t length_at = out.size() - limits::max_join_token - 2;
    out[length_at] = std::byte{0x01}; // 513, little-endian
    out[length_at + 1] = std::byte{0x02};
    const auto r = decode(out, back);
    REQUIRE_FALSE(r);
    CHECK(r.code() == errc::too_large);
    CHECK(r.err().offset == length_at);
    CHECK(std::string(r.err().what) == "join token longer than 512 bytes");
}

TEST_CASE("hello flags: bit 1 says the sender is big-endian, bits 2..7 are invalid", "[net][protocol]") {
    constexpr std::size_t flags_at = 32; // docs/protocol.md, "1 hello"
    hello_msg h;
    h.name = "ada";
    std::vector<std::byte> out;
    encode(h, out);
    // The encoder tells the truth about this host.
    CHECK(out[flags_at] == std::byte{std::endian::native == std::endian::big ? 2 : 0});
    hello_msg back;
    REQUIRE(decode(out, back));
    CHECK(back.big_endian == (std::endian::native == std::endian::big));

    for (const bool spectator : {false, true}) {
        CAPTURE(spectator);
        h.spectator = spectator;
        h.big_endian = true;
        encode(h, out);
        CHECK(out[flags_at] == std::byte{static_cast<std::uint8_t>(spectator ? 3 : 2)});
        back = hello_msg{};
        REQUIRE(decode(out, back));
        CHECK(back.big_endian);
        CHECK(back.spectator == spectator);
        CHECK(back.name == "ada");
    }

    h = hello_msg{};
    h.name = "ada";
    encode(h, out);
    for (int bit = 2; bit < 8; ++bit) {
        CAPTURE(bit);
        auto bad = out;
        bad[flags_at] = std::byte{static_cast<std::uint8_t>(1u << bit)};
        back.name = "untouched";
        const auto r = decode(bad, back);
        CHECK(r.code() == errc::corrupt);
        CHECK(r.err().offset == flags_at);
        CHECK(std::string(r.err().what) == "unknown hello flags");
        CHECK(back.name == "untouched");
    }
}

TEST_CASE("decoders reject in one shape: a code, a static text and the byte offset", "[net][protocol]") {
    hello_msg h;
    h.name = "ada";
    std::vector<std::byte> out;
    encode(h, out);
    hello_msg back;
    back.name = "untouched";

    SECTION("a truncated message names where it ends") {
        const auto r = decode(std::span<const std::byte>(out.data(), 10), back);
        REQUIRE_FALSE(r);
        CHECK(r.code() == errc::truncated);
        CHECK(r.err().context.empty()); // nothing formatted on the rejection path
        CHECK(std::strlen(r.err().what) > 0);
        CHECK(r.err().offset <= 10);
        CHECK(r.message().find("at byte") != std::string::npos);
    }
    SECTION("another kind is not this message") {
        out[0] = std::byte{static_cast<std::uint8_t>(message_kind::welcome)};
        const auto r = decode(out, back);
        CHECK(r.code() == errc::bad_magic);
        CHECK(r.err().offset == 0);
    }
    SECTION("an empty packet") { CHECK(decode(std::span<const std::byte>{}, back).code() == errc::truncated); }
    SECTION("a hello of protocol version 1 is refused as another version, not as garbage") {
        out[1] = std::byte{1};
        out[2] = std::byte{0};
        const auto r = decode(out, back);
        CHECK(r.code() == errc::bad_version);
        CHECK(peek_hello_version(out) == 1);
    }
    SECTION("a name over 32 bytes") {
        h.name = std::string(40, 'x');
        std::vector<std::byte> raw;
        encode(h, raw);
        constexpr std::size_t name_length_at = 49;     // docs/protocol.md, "1 hello"
        REQUIRE(raw[name_length_at] == std::byte{32}); // the encoder cut it to 32: claim 40 (and append 8)
        raw[name_length_at] = std::byte{40};
        raw.insert(raw.begin() + name_length_at + 1 + 32, 8, std::byte{'x'});
        CHECK(decode(raw, back).code() == errc::too_large);
    }
    CHECK(back.name == "untouched"); // a rejected message leaves the output alone
}

TEST_CASE("welcome, reject, desync, bye round-trip", "[net][protocol]") {
    std::vector<std::byte> out;
    welcome_msg w;
    w.slot = 3;
    w.max_players = 4;
    w.tick_hz = 30;
    w.input_delay = 1;
    w.max_input_delay = 5;
    w.server_frame = 1234;
    w.token = test_token(0xde);
    w.report_checksums = false;
    encode(w, out);
    CHECK(out.size() == 28);
    welcome_msg wb;
    REQUIRE(decode(out, wb));
    CHECK(wb.slot == 3);
    CHECK(wb.max_players == 4);
    CHECK(wb.tick_hz == 30);
    CHECK(wb.input_delay == 1);
    CHECK(wb.max_input_delay == 5);
    CHECK(wb.server_frame == 1234);
    CHECK(wb.token == test_token(0xde));
    CHECK_FALSE(wb.report_checksums);
    require_truncations_rejected(out, [](std::span<const std::byte> b) {
        welcome_msg m;
        return decode(b, m);
    });
    const auto refused = [&](welcome_msg bad) {
        encode(bad, out);
        welcome_msg x;
        return !decode(out, x).ok();
    };
    welcome_msg bad = w;
    bad.slot = 9; // slot beyond max_players
    CHECK(refused(bad));
    bad = w;
    bad.tick_hz = 0;
    CHECK(refused(bad));
    bad = w;
    bad.max_players = 33;
    CHECK(refused(bad));
    bad = w;
    bad.max_input_delay = 0; // below input_delay
    CHECK(refused(bad));
    bad = w;
    bad.input_delay = bad.max_input_delay = 61;
    CHECK(refused(bad));
    encode(w, out);
    for (unsigned bit = 1; bit < 8; ++bit) { // flags bit 0 only (docs/protocol.md, "2 welcome")
        auto flagged = out;
        flagged[11] = std::byte{static_cast<std::uint8_t>(1u << bit)};
        welcome_msg x;
        const auto r = decode(flagged, x);
        REQUIRE_FALSE(r);
        CHECK(r.err().offset == 11);
    }

    encode(reject_msg{reject_reason::schema, "different build"}, out);
    reject_msg rb;
    REQUIRE(decode(out, rb));
    CHECK(rb.reason == reject_reason::schema);
    CHECK(rb.text == "different build");
    encode(reject_msg{static_cast<reject_reason>(5), "tick rate"}, out); // a version 1 reason
    CHECK(decode(out, rb).code() == errc::corrupt);
    encode(reject_msg{static_cast<reject_reason>(8), "player slots"}, out); // retired, not reused
    CHECK(decode(out, rb).code() == errc::corrupt);
    encode(reject_msg{reject_reason::spectators, "no free spectator place"}, out);
    REQUIRE(decode(out, rb));
    CHECK(rb.reason == reject_reason::spectators);

    encode(desync_msg{77, "position, velocity"}, out);
    desync_msg db;
    REQUIRE(decode(out, db));
    CHECK(db.frame == 77);
    CHECK(db.diverging == "position, velocity");

    encode(bye_msg{1}, out);
    bye_msg bb;
    REQUIRE(decode(out, bb));
    CHECK(bb.reason == 1);
}

TEST_CASE("desync bisection: the desync's stage fields and the stage report round-trip, bounded", "[net][protocol]") {
    std::vector<std::byte> out;
    stage_hashes h;
    h.names = 0x1122334455667788u;
    h.start = 42;
    h.after = {1, 2, 3};

    desync_msg first{300, ""};
    first.server = h;
    encode(first, out);
    CHECK(out.size() == 1u + 4u + 2u + 1u + 1u + 1u + 16u + 3u * 8u);
    desync_msg d;
    REQUIRE(decode(out, d));
    CHECK(d.frame == 300);
    CHECK(d.stage == stage_none);
    CHECK(d.server.names == h.names);
    CHECK(d.server.start == 42u);
    CHECK(d.server.after == h.after);
    require_truncations_rejected(out, [](std::span<const std::byte> b) {
        desync_msg x;
        return decode(b, x).ok();
    });

    desync_msg verdict{300, "ship_pos.x"};
    verdict.stage = 1;
    verdict.stage_count = 3;
    encode(verdict, out);
    REQUIRE(decode(out, d));
    CHECK(d.stage == 1);
    CHECK(d.stage_count == 3);
    CHECK(d.server.after.empty()); // the previous decode's list is not kept
    verdict.stage = stage_start;
    encode(verdict, out);
    REQUIRE(decode(out, d));
    CHECK(d.stage == stage_start);
    verdict.stage = 3; // not below the count
    encode(verdict, out);
    CHECK(decode(out, d).code() == errc::corrupt);
    verdict.stage = stage_none; // no stage, yet a count
    encode(verdict, out);
    CHECK(decode(out, d).code() == errc::corrupt);
    verdict.stage = 0;
    verdict.stage_count = 129;
    encode(verdict, out);
    CHECK(decode(out, d).code() == errc::corrupt);

    stage_report_msg r;
    r.frame = 300;
    r.upload_point = 2;
    r.client = h;
    encode(r, out);
    CHECK(out.size() == 1u + 4u + 1u + 1u + 16u + 3u * 8u);
    stage_report_msg rb;
    REQUIRE(decode(out, rb));
    CHECK(rb.frame == 300);
    CHECK(rb.upload_point == 2);
    CHECK(rb.client.after == h.after);
    require_truncations_rejected(out, [](std::span<const std::byte> b) {
        stage_report_msg x;
        return decode(b, x).ok();
    });
    auto longer = out;
    longer.push_back(std::byte{0});
    CHECK(decode(longer, rb).code() == errc::corrupt);
    for (const std::uint8_t point : {stage_start, stage_none}) {
        r.upload_point = point;
        encode(r, out);
        REQUIRE(decode(out, rb));
        CHECK(rb.upload_point == point);
    }
    r.upload_point = 3; // past the 3 stages
    encode(r, out);
    CHECK(decode(out, rb).code() == errc::corrupt);
    r.upload_point = stage_none;
    r.client.after.clear(); // a report always has stages
    encode(r, out);
    CHECK(decode(out, rb).code() == errc::corrupt);
    // The largest list: 128 stages (the report's 1,047 bytes); 129 is refused.
    r.client.after.assign(limits::max_stages, 7u);
    encode(r, out);
    CHECK(out.size() == 1047u);
    REQUIRE(decode(out, rb));
    out[6] = std::byte{129};
    out.insert(out.end(), 8, std::byte{0});
    CHECK(decode(out, rb).code() == errc::too_large);
}

TEST_CASE("input messages delta-encode and round-trip", "[net][protocol]") {
    input_msg m;
    m.slot = 2;
    m.ack_confirmed = 100;
    m.first_frame = 98;
    m.count = 5;
    m.client_time_ms = 12345;
    m.checksum_frame = 97;
    m.checksum = 0xabcdef;
    m.inputs = bytes_of({1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0});
    std::vector<std::byte> out;
    encode(m, 4, {}, out);
    input_msg back;
    REQUIRE(decode(out, 4, {}, back));
    CHECK(back.slot == 2);
    CHECK(back.first_frame == 98);
    CHECK(back.count == 5);
    CHECK(back.checksum_frame == 97);
    CHECK(back.checksum == 0xabcdef);
    CHECK(back.inputs == m.inputs);
    require_truncations_rejected(out, [](std::span<const std::byte> b) {
        input_msg x;
        return decode(b, 4, {}, x);
    });
}

TEST_CASE("an idle player's redundant inputs cost almost nothing", "[net][protocol]") {
    // 20 frames of the same 4-byte input: the XOR against the previous input is all zero after
    // the first, and zero runs collapse.
    std::vector<std::byte> inputs;
    for (int f = 0; f < 20; ++f) {
        const auto more = bytes_of({5, 0, 0, 7});
        inputs.insert(inputs.end(), more.begin(), more.end());
    }
    std::vector<std::byte> enc, dec;
    encode_inputs(inputs, {}, 4, enc);
    CHECK(enc.size() <= 6);
    REQUIRE(decode_inputs(enc, {}, 4, 20, dec));
    CHECK(dec == inputs);
}

TEST_CASE("input decoding rejects inconsistent run lengths", "[net][protocol]") {
    std::vector<std::byte> dec;
    CHECK_FALSE(decode_inputs(bytes_of({0}), {}, 4, 1, dec));             // run without length
    CHECK_FALSE(decode_inputs(bytes_of({0, 10}), {}, 4, 1, dec));         // 11 zeros for 4 bytes
    CHECK_FALSE(decode_inputs(bytes_of({1, 2, 3}), {}, 4, 1, dec));       // too short
    CHECK_FALSE(decode_inputs(bytes_of({1, 2, 3, 4, 5}), {}, 4, 1, dec)); // too long
    CHECK(decode_inputs(bytes_of({1, 2, 3, 4}), {}, 4, 1, dec));
}

TEST_CASE("confirmed messages use the previous frame as base only when flagged", "[net][protocol]") {
    confirmed_msg m;
    m.ack_input = 50;
    m.margin_ms = -12;
    m.server_frame = 60;
    m.first_frame = 55;
    m.count = 2;
    m.players = 2;
    m.base = 1;
    const std::size_t rec = 2 * (1 + 4);
    const auto base = bytes_of({1, 1, 9, 9, 9, 9, 8, 8, 8, 8});
    m.frames = bytes_of({1, 1, 9, 9, 9, 9, 8, 8, 8, 8, 1, 3, 9, 9, 9, 0, 8, 8, 8, 8});
    std::vector<std::byte> out;
    encode(m, 4, base, out);
    confirmed_msg back;
    REQUIRE(decode(out, 4, base, back));
    CHECK(back.frames == m.frames);
    CHECK(back.margin_ms == -12);
    CHECK(back.frames.size() == 2 * rec);
    // Decoding against the wrong base yields different bytes, so the base flag matters.
    confirmed_msg wrong;
    REQUIRE(decode(out, 4, std::vector<std::byte>(rec, std::byte{0}), wrong));
    CHECK(wrong.frames != m.frames);
    require_truncations_rejected(out, [&](std::span<const std::byte> b) {
        confirmed_msg x;
        return decode(b, 4, base, x);
    });
}

TEST_CASE("snapshot chunks are bounded", "[net][protocol]") {
    snapshot_chunk_msg m;
    m.transfer = 1;
    m.frame = 10;
    m.total = 3000;
    m.offset = 1000;
    m.bytes.assign(1000, std::byte{7});
    std::vector<std::byte> out;
    encode(m, out);
    snapshot_chunk_msg back;
    REQUIRE(decode(out, back));
    CHECK(back.bytes.size() == 1000);
    m.offset = 2500; // chunk would run past the declared total
    encode(m, out);
    CHECK_FALSE(decode(out, back));
    m.offset = 0;
    m.total = static_cast<std::uint32_t>(limits::max_snapshot + 1); // absurd total
    encode(m, out);
    CHECK_FALSE(decode(out, back));
}

TEST_CASE("random garbage never decodes as a valid message of the wrong size", "[net][protocol]") {
    std::mt19937 rng{1234};
    std::size_t accepted = 0;
    for (int i = 0; i < 20000; ++i) {
        std::vector<std::byte> junk(rng() % 64);
        for (auto &b : junk) b = static_cast<std::byte>(rng());
        if (!junk.empty()) junk[0] = static_cast<std::byte>(1 + rng() % 8);
        hello_msg h;
        welcome_msg w;
        reject_msg r;
        input_msg in;
        confirmed_msg c;
        snapshot_chunk_msg s;
        desync_msg d;
        bye_msg b;
        // Decoding must never crash (ASan run) and must only accept exactly-sized messages.
        for (const bool ok :
             {decode(junk, h).ok(), decode(junk, w).ok(), decode(junk, r).ok(), decode(junk, 4, {}, in).ok(),
              decode(junk, 4, {}, c).ok(), decode(junk, s).ok(), decode(junk, d).ok(), decode(junk, b).ok()})
            accepted += ok ? 1u : 0u;
    }
    CHECK(accepted < 2000); // some short kinds (bye) legitimately decode from random bytes
}

TEST_CASE("a flood of malformed packets allocates nothing in the decoders", "[net][protocol][allocations]") {
    // Valid messages of every kind, with long variable parts (names, texts, payloads past the
    // small-buffer size), then truncations of each and each with a byte too many: what the
    // decoders refuse must cost no memory.
    std::vector<std::vector<std::byte>> packets;
    std::vector<std::byte> out;
    hello_msg hello;
    hello.name = std::string(32, 'n');
    hello.join_token.assign(limits::max_join_token, std::byte{0x5a});
    encode(hello, out);
    packets.push_back(out);
    welcome_msg welcome;
    welcome.max_players = 3;
    welcome.slot = 1;
    encode(welcome, out);
    packets.push_back(out);
    encode(reject_msg{reject_reason::full, std::string(300, 'r')}, out);
    packets.push_back(out);
    input_msg in;
    in.count = 40;
    for (int i = 0; i < 160; ++i) in.inputs.push_back(static_cast<std::byte>(i * 7));
    encode(in, 4, {}, out);
    packets.push_back(out);
    confirmed_msg cm;
    cm.count = 20;
    cm.players = 3;
    for (int i = 0; i < 20 * 15; ++i) cm.frames.push_back(static_cast<std::byte>(i * 3));
    encode(cm, 4, {}, out);
    packets.push_back(out);
    snapshot_chunk_msg chunk;
    chunk.total = 2000;
    chunk.bytes.assign(1000, std::byte{9});
    encode(chunk, out);
    packets.push_back(out);
    encode(desync_msg{5, std::string(200, 'd')}, out);
    packets.push_back(out);
    desync_msg staged{5, ""};
    staged.server.after.assign(limits::max_stages, 3u);
    encode(staged, out);
    packets.push_back(out);
    stage_report_msg report;
    report.client.after.assign(limits::max_stages, 4u);
    encode(report, out);
    packets.push_back(out);

    std::vector<std::vector<std::byte>> malformed;
    for (const auto &p : packets) {
        for (std::size_t n = 0; n < p.size(); n += 1 + n / 16)
            malformed.emplace_back(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(n));
        auto longer = p;
        longer.push_back(std::byte{0});
        malformed.push_back(longer);
    }
    // Input payloads (the XOR + zero-run coding) that end early or run long.
    std::vector<std::byte> payload;
    encode_inputs(in.inputs, {}, 4, payload);
    std::vector<std::vector<std::byte>> bad_payloads;
    for (std::size_t n = 0; n < payload.size(); ++n)
        bad_payloads.emplace_back(payload.begin(), payload.begin() + static_cast<std::ptrdiff_t>(n));
    bad_payloads.push_back(payload);
    bad_payloads.back().push_back(std::byte{1});
    bad_payloads.push_back({std::byte{0}});
    // Fresh outputs: nothing reserved, so any write on the rejection path would allocate.
    hello_msg h;
    welcome_msg w;
    reject_msg r;
    input_msg im;
    confirmed_msg c;
    snapshot_chunk_msg s;
    desync_msg d;
    bye_msg b;
    stage_report_msg sr;
    std::vector<std::byte> inputs;
    std::size_t accepted = 0;
    std::size_t allocations = 0;
    {
        retcon::test::allocation_counter counter;
        for (int round = 0; round < 20; ++round) {
            for (const auto &p : malformed)
                for (const bool ok :
                     {decode(p, h).ok(), decode(p, w).ok(), decode(p, r).ok(), decode(p, 4, {}, im).ok(),
                      decode_header(p, im).ok(), decode(p, 4, {}, c).ok(), decode_header(p, c).ok(), decode(p, s).ok(),
                      decode(p, d).ok(), decode(p, b).ok(), decode(p, sr).ok()})
                    accepted += ok ? 1u : 0u;
            for (const auto &p : bad_payloads) accepted += decode_inputs(p, {}, 4, 40, inputs).ok() ? 1u : 0u;
        }
        allocations = counter.count();
    }
    INFO(malformed.size() << " malformed packets × 11 decoders and " << bad_payloads.size()
                          << " bad input payloads, 20 rounds");
    CHECK(accepted == 0);
    CHECK(allocations == 0);
    CHECK(h.name.empty());
    CHECK(im.inputs.empty());
    CHECK(c.frames.empty());
}
