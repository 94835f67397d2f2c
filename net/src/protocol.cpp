#include <retcon/net/protocol.hpp>

#include <retcon/internal/byte_io.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <string_view>
#include <utility>

namespace retcon::wire {

namespace {

using reader = internal::byte_reader;

// Static texts shared by every decoder. Rejections are built from these and an offset only
// (no std::string, no allocation): docs/protocol.md, "Decoding".
constexpr const char *empty_text = "empty packet";
constexpr const char *kind_text = "message of another kind";
constexpr const char *truncated_text = "message ends before its last field";
constexpr const char *trailing_text = "bytes after the end of the message";
// Texts that name a limit; the asserts keep them true when a limit changes.
constexpr const char *players_text = "player slots outside 1..32";
constexpr const char *frames_text = "more than 64 frames in one packet";
static_assert(limits::max_players == 32 && limits::max_frames_per_packet == 64 && limits::max_input_delay == 60 &&
                  limits::snapshot_chunk == 1000 && limits::max_snapshot == 64u << 20 && limits::max_name == 32 &&
                  limits::max_text == 512,
              "a limit changed: update the rejection texts in this file that name it");

/// Starts a message: clears @p out and returns a writer for it.
internal::byte_writer start(std::vector<std::byte> &out, message_kind kind) {
    out.clear();
    internal::byte_writer w{out};
    w.u8(static_cast<std::uint8_t>(kind));
    return w;
}

/// Reads the kind byte.
result<void> expect_kind(std::span<const std::byte> in, reader &r, message_kind k) {
    if (in.empty()) return error{errc::truncated, empty_text, 0};
    if (r.u8() != static_cast<std::uint8_t>(k)) return error{errc::bad_magic, kind_text, 0};
    return {};
}

/// After the last field: everything was there and nothing follows.
result<void> expect_end(const reader &r) {
    if (!r.ok()) return error{errc::truncated, truncated_text, r.offset()};
    if (r.remaining() != 0) return error{errc::corrupt, trailing_text, r.offset()};
    return {};
}

/// A length-prefixed text whose length was already read (at byte @p at): its bytes, or an
/// error if it is longer than @p max. The caller copies it only once the message is accepted.
result<std::string_view> text_bytes(reader &r, std::size_t n, std::size_t max, std::uint64_t at, const char *too_long) {
    if (n > max) return error{errc::too_large, too_long, at};
    const auto b = r.bytes(n);
    return std::string_view{reinterpret_cast<const char *>(b.data()), b.size()};
}

/// Appends the XOR + zero-run coding of @p inputs to @p out (docs/protocol.md, "Input coding"):
/// each byte XOR the byte @p input_size earlier (for the first record: @p base, or zero); a
/// non-zero result stands for itself, 0x00 n for n + 1 zero bytes. The XORed bytes are never
/// stored: no scratch buffer. @p inputs and @p base must not alias @p out.
void xor_rle_append(std::vector<std::byte> &out, std::span<const std::byte> inputs, std::span<const std::byte> base,
                    std::size_t input_size) {
    const auto x = [&](std::size_t i) {
        const std::byte prev = i < input_size ? (i < base.size() ? base[i] : std::byte{0}) : inputs[i - input_size];
        return inputs[i] ^ prev;
    };
    std::size_t i = 0;
    while (i < inputs.size()) {
        if (const std::byte b = x(i); b != std::byte{0}) {
            out.push_back(b);
            ++i;
            continue;
        }
        std::size_t run = 1;
        while (i + run < inputs.size() && x(i + run) == std::byte{0} && run < 256) ++run;
        out.push_back(std::byte{0});
        out.push_back(std::byte(static_cast<std::uint8_t>(run - 1)));
        i += run;
    }
}

/// Appends the coded @p inputs to a message as a u16 length and the bytes, coding them in
/// place (the length is patched once known).
void append_coded_inputs(std::vector<std::byte> &out, std::span<const std::byte> inputs,
                         std::span<const std::byte> base, std::size_t input_size) {
    const std::size_t at = out.size();
    out.resize(at + 2);
    xor_rle_append(out, inputs, base, input_size);
    const std::size_t n = out.size() - at - 2;
    RETCON_ASSERT(n <= 0xffffu,
                  "coded inputs longer than a u16 length can say (limits::max_packet keeps them shorter)");
    out[at] = std::byte(static_cast<std::uint8_t>(n));
    out[at + 1] = std::byte(static_cast<std::uint8_t>(n >> 8u));
}

/// Checks that @p in decodes to exactly @p expected bytes, writing nothing (so a rejection
/// never grows a buffer). Offsets are @p at + the position in @p in.
result<void> rle_check(std::span<const std::byte> in, std::size_t expected, std::uint64_t at) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < in.size();) {
        if (in[i] != std::byte{0}) {
            if (n == expected) return error{errc::corrupt, "inputs decode to more bytes than declared", at + i};
            ++n;
            ++i;
            continue;
        }
        if (i + 1 >= in.size()) return error{errc::truncated, "zero run without its length", at + i};
        const std::size_t run = static_cast<std::size_t>(in[i + 1]) + 1u;
        if (n + run > expected) return error{errc::corrupt, "inputs decode to more bytes than declared", at + i};
        n += run;
        i += 2;
    }
    if (n != expected) return error{errc::truncated, "inputs decode to fewer bytes than declared", at + in.size()};
    return {};
}

/// Expands a payload rle_check accepted into @p out (exactly its decoded size).
void rle_expand(std::span<const std::byte> in, std::span<std::byte> out) noexcept {
    std::size_t n = 0;
    for (std::size_t i = 0; i < in.size();) {
        if (in[i] != std::byte{0}) {
            out[n++] = in[i++];
            continue;
        }
        const std::size_t run = static_cast<std::size_t>(in[i + 1]) + 1u;
        std::memset(out.data() + n, 0, run);
        n += run;
        i += 2;
    }
}

result<void> decode_inputs_at(std::span<const std::byte> encoded, std::span<const std::byte> base, std::size_t record,
                              std::size_t count, std::vector<std::byte> &out, std::uint64_t at) {
    if (record == 0) return error{errc::invalid_argument, "input records of zero bytes", at};
    if (count * record > limits::max_frames_per_packet * input_record_size(limits::max_players, limits::max_input_size))
        return error{errc::too_large, "inputs exceed the protocol's bound", at};
    if (auto r = rle_check(encoded, count * record, at); !r) return r;
    out.resize(count * record);
    rle_expand(encoded, out);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::byte prev = i < record ? (i < base.size() ? base[i] : std::byte{0}) : out[i - record];
        out[i] ^= prev;
    }
    return {};
}

/// Moves every header field of a decoded @p header into @p to, keeping @p to's payload buffer
/// (and its capacity: no allocation). @p header's own payload is empty.
template<class Msg>
void assign_header(Msg &to, Msg &&header, std::vector<std::byte> Msg::*payload) noexcept {
    std::vector<std::byte> kept = std::move(to.*payload);
    to = std::forward<Msg>(header);
    to.*payload = std::move(kept);
}

// Byte offsets of the payload length in input and confirmed messages (docs/protocol.md).
constexpr std::size_t input_payload_at = 1 + 1 + 4 + 4 + 1 + 4 + 4 + 8;
constexpr std::size_t confirmed_payload_at = 1 + 4 + 2 + 4 + 2 + 4 + 4 + 1 + 1 + 1;

} // namespace

void encode_inputs(std::span<const std::byte> inputs, std::span<const std::byte> base, std::size_t input_size,
                   std::vector<std::byte> &out) {
    out.clear();
    xor_rle_append(out, inputs, base, input_size);
}

result<void> decode_inputs(std::span<const std::byte> encoded, std::span<const std::byte> base, std::size_t input_size,
                           std::size_t count, std::vector<std::byte> &out) {
    return decode_inputs_at(encoded, base, input_size, count, out, 0);
}

std::uint8_t peek_kind(std::span<const std::byte> packet) noexcept {
    return packet.empty() ? 0 : static_cast<std::uint8_t>(packet[0]);
}

std::uint16_t peek_hello_version(std::span<const std::byte> packet) noexcept {
    if (packet.size() < 3) return 0;
    return static_cast<std::uint16_t>(static_cast<unsigned>(packet[1]) | static_cast<unsigned>(packet[2]) << 8u);
}

// ------------------------------------------------------------------------------------ hello

// Bits of the hello's flags byte (docs/protocol.md); any other bit is invalid.
constexpr unsigned hello_spectator = 1u;
constexpr unsigned hello_big_endian = 2u;

std::string version_refusal(std::uint32_t client_version) {
    return "protocol version " + std::to_string(client_version) + ", server speaks " + std::to_string(protocol_version);
}

const char *to_string(reject_reason r) noexcept {
    if (r == reject_reason::none) return "none";
    const reject_reason_info *row = describe(r);
    return row ? row->name : "unknown";
}

void encode(const hello_msg &m, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::hello);
    w.u16(m.version);
    w.u64(m.schema_hash);
    w.u16(m.semantics);
    w.u8(m.entity_bits);
    w.u64(m.input_layout_hash);
    w.u64(m.content_version);
    w.u16(m.input_size);
    // Bit 1 tells the truth about this host, so a server can refuse a big-endian peer by name.
    const bool big_endian = m.big_endian || std::endian::native == std::endian::big;
    w.u8(static_cast<std::uint8_t>((m.spectator ? hello_spectator : 0u) | (big_endian ? hello_big_endian : 0u)));
    w.bytes(m.reconnect_token.bytes());
    w.text8(m.name, limits::max_name);
    // Cut to the limit like the texts (a host then refuses the cut token as malformed).
    const auto token_size = std::min(m.join_token.size(), limits::max_join_token);
    w.u16(static_cast<std::uint16_t>(token_size));
    w.bytes({m.join_token.data(), token_size});
}

result<void> decode(std::span<const std::byte> in, hello_msg &m) {
    reader r{in};
    if (auto k = expect_kind(in, r, message_kind::hello); !k) return k;
    const auto version = r.u16();
    if (!r.ok()) return error{errc::truncated, truncated_text, r.offset()};
    if (version != protocol_version) return error{errc::bad_version, "hello of another protocol version", 1};
    const auto schema_hash = r.u64();
    const auto semantics_at = r.offset();
    const auto semantics = r.u16();
    const auto entity_bits_at = r.offset();
    const auto entity_bits = r.u8();
    const auto layout = r.u64();
    const auto content = r.u64();
    const auto input_size = r.u16();
    const auto flags_at = r.offset();
    const auto flags = r.u8();
    const auto token = r.bytes(reconnect_token::size);
    const auto name_at = r.offset();
    const auto name = text_bytes(r, r.u8(), limits::max_name, name_at, "player name longer than 32 bytes");
    if (!name) return name.err();
    const auto join_at = r.offset();
    const auto join_size = r.u16();
    if (r.ok() && join_size > limits::max_join_token)
        return error{errc::too_large, "join token longer than 512 bytes", join_at};
    const auto join = r.bytes(join_size);
    if (auto e = expect_end(r); !e) return e;
    if ((flags & ~(hello_spectator | hello_big_endian)) != 0u)
        return error{errc::corrupt, "unknown hello flags", flags_at};
    if (semantics == 0) return error{errc::corrupt, "simulation semantics 0", semantics_at};
    if (entity_bits != 32 && entity_bits != 64)
        return error{errc::corrupt, "entity handles neither 32 nor 64 bits", entity_bits_at};
    m.version = version;
    m.schema_hash = schema_hash;
    m.semantics = semantics;
    m.entity_bits = entity_bits;
    m.input_layout_hash = layout;
    m.content_version = content;
    m.input_size = input_size;
    m.spectator = (flags & hello_spectator) != 0u;
    m.big_endian = (flags & hello_big_endian) != 0u;
    m.reconnect_token = reconnect_token{token.first<reconnect_token::size>()};
    m.name.assign(name->data(), name->size());
    m.join_token.assign(join.begin(), join.end());
    return {};
}

// ---------------------------------------------------------------------------------- welcome

// Bits of the welcome's flags byte (docs/protocol.md); any other bit is invalid.
constexpr unsigned welcome_report_checksums = 1u;

void encode(const welcome_msg &m, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::welcome);
    w.u8(m.slot);
    w.u8(m.max_players);
    w.u16(m.tick_hz);
    w.u8(m.input_delay);
    w.u8(m.max_input_delay);
    w.u32(m.server_frame);
    w.u8(m.report_checksums ? welcome_report_checksums : 0u);
    w.bytes(m.token.bytes());
}

result<void> decode(std::span<const std::byte> in, welcome_msg &m) {
    reader r{in};
    if (auto k = expect_kind(in, r, message_kind::welcome); !k) return k;
    welcome_msg v;
    v.slot = r.u8();
    v.max_players = r.u8();
    v.tick_hz = r.u16();
    v.input_delay = r.u8();
    v.max_input_delay = r.u8();
    v.server_frame = r.u32();
    const auto flags = r.u8();
    const auto token = r.bytes(reconnect_token::size);
    if (auto e = expect_end(r); !e) return e;
    if ((flags & ~welcome_report_checksums) != 0u) return error{errc::corrupt, "unknown welcome flags", 11};
    v.report_checksums = (flags & welcome_report_checksums) != 0u;
    v.token = reconnect_token{token.first<reconnect_token::size>()};
    if (v.max_players < 1 || v.max_players > limits::max_players) return error{errc::corrupt, players_text, 2};
    if (v.slot != 0xff && v.slot >= v.max_players) return error{errc::corrupt, "slot beyond the player slots", 1};
    if (v.tick_hz == 0) return error{errc::corrupt, "tick rate of 0 Hz", 3};
    if (v.input_delay > limits::max_input_delay) return error{errc::corrupt, "input delay above 60 frames", 5};
    if (v.max_input_delay < v.input_delay || v.max_input_delay > limits::max_input_delay)
        return error{errc::corrupt, "maximum input delay outside input delay..60", 6};
    m = v;
    return {};
}

// ----------------------------------------------------------------------------------- reject

void encode(const reject_msg &m, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::reject);
    w.u8(static_cast<std::uint8_t>(m.reason));
    w.text16(m.text, limits::max_text);
}

result<void> decode(std::span<const std::byte> in, reject_msg &m) {
    reader r{in};
    if (auto k = expect_kind(in, r, message_kind::reject); !k) return k;
    const auto reason = r.u8();
    const auto text = text_bytes(r, r.u16(), limits::max_text, 2, "reject text longer than 512 bytes");
    if (!text) return text.err();
    if (auto e = expect_end(r); !e) return e;
    if (!describe(static_cast<reject_reason>(reason))) return error{errc::corrupt, "unknown reject reason", 1};
    m.reason = static_cast<reject_reason>(reason);
    m.text.assign(text->data(), text->size());
    return {};
}

// ------------------------------------------------------------------------------------ input

void encode(const input_msg &m, std::size_t input_size, std::span<const std::byte> base, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::input);
    w.u8(m.slot);
    w.u32(m.ack_confirmed);
    w.u32(m.first_frame);
    w.u8(m.count);
    w.u32(m.client_time_ms);
    w.u32(m.checksum_frame);
    w.u64(m.checksum);
    append_coded_inputs(out, m.inputs, base, input_size);
}

namespace {

/// The header of an input message, and where its payload is.
result<std::span<const std::byte>> input_header(std::span<const std::byte> in, input_msg &h) {
    reader r{in};
    if (auto k = expect_kind(in, r, message_kind::input); !k) return k.err();
    h.slot = r.u8();
    h.ack_confirmed = r.u32();
    h.first_frame = r.u32();
    h.count = r.u8();
    h.client_time_ms = r.u32();
    h.checksum_frame = r.u32();
    h.checksum = r.u64();
    const auto payload = r.bytes(r.u16());
    if (auto e = expect_end(r); !e) return e.err();
    if (h.count > limits::max_frames_per_packet) return error{errc::too_large, frames_text, 10};
    if (h.first_frame > max_frame - h.count) return error{errc::corrupt, "frames run past the last frame", 6};
    return payload;
}

} // namespace

result<void> decode_header(std::span<const std::byte> in, input_msg &m) {
    input_msg h; // its empty vector does not allocate
    const auto payload = input_header(in, h);
    if (!payload) return payload.err();
    assign_header(m, std::move(h), &input_msg::inputs);
    return {};
}

result<void> decode(std::span<const std::byte> in, std::size_t input_size, std::span<const std::byte> base,
                    input_msg &m) {
    input_msg h;
    const auto payload = input_header(in, h);
    if (!payload) return payload.err();
    if (auto r = decode_inputs_at(*payload, base, input_size, h.count, m.inputs, input_payload_at + 2); !r) return r;
    assign_header(m, std::move(h), &input_msg::inputs);
    return {};
}

// -------------------------------------------------------------------------------- confirmed

void encode(const confirmed_msg &m, std::size_t input_size, std::span<const std::byte> base,
            std::vector<std::byte> &out) {
    auto w = start(out, message_kind::confirmed);
    w.u32(m.ack_input);
    w.u16(static_cast<std::uint16_t>(m.margin_ms));
    w.u32(m.echo_time_ms);
    w.u16(m.hold_ms);
    w.u32(m.server_frame);
    w.u32(m.first_frame);
    w.u8(m.count);
    w.u8(m.players);
    w.u8(m.base);
    append_coded_inputs(out, m.frames, m.base ? base : std::span<const std::byte>{},
                        input_record_size(m.players, input_size));
}

namespace {

result<std::span<const std::byte>> confirmed_header(std::span<const std::byte> in, confirmed_msg &h) {
    reader r{in};
    if (auto k = expect_kind(in, r, message_kind::confirmed); !k) return k.err();
    h.ack_input = r.u32();
    h.margin_ms = static_cast<std::int16_t>(r.u16());
    h.echo_time_ms = r.u32();
    h.hold_ms = r.u16();
    h.server_frame = r.u32();
    h.first_frame = r.u32();
    h.count = r.u8();
    h.players = r.u8();
    h.base = r.u8();
    const auto payload = r.bytes(r.u16());
    if (auto e = expect_end(r); !e) return e.err();
    if (h.count > limits::max_frames_per_packet) return error{errc::too_large, frames_text, 21};
    if (h.players < 1 || h.players > limits::max_players) return error{errc::corrupt, players_text, 22};
    if (h.base > 1u) return error{errc::corrupt, "base flag other than 0 or 1", 23};
    if (h.first_frame > max_frame - h.count) return error{errc::corrupt, "frames run past the last frame", 17};
    return payload;
}

} // namespace

result<void> decode_header(std::span<const std::byte> in, confirmed_msg &m) {
    confirmed_msg h;
    const auto payload = confirmed_header(in, h);
    if (!payload) return payload.err();
    assign_header(m, std::move(h), &confirmed_msg::frames);
    return {};
}

result<void> decode(std::span<const std::byte> in, std::size_t input_size, std::span<const std::byte> base,
                    confirmed_msg &m) {
    confirmed_msg h;
    const auto payload = confirmed_header(in, h);
    if (!payload) return payload.err();
    if (auto r =
            decode_inputs_at(*payload, h.base ? base : std::span<const std::byte>{},
                             input_record_size(h.players, input_size), h.count, m.frames, confirmed_payload_at + 2);
        !r)
        return r;
    assign_header(m, std::move(h), &confirmed_msg::frames);
    return {};
}

// --------------------------------------------------------------------------- snapshot chunk

void encode(const snapshot_chunk_msg &m, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::snapshot_chunk);
    w.u32(m.transfer);
    w.u32(m.frame);
    w.u32(m.total);
    w.u32(m.offset);
    w.u16(static_cast<std::uint16_t>(m.bytes.size()));
    w.bytes(m.bytes);
}

result<void> decode(std::span<const std::byte> in, snapshot_chunk_msg &m) {
    reader r{in};
    if (auto k = expect_kind(in, r, message_kind::snapshot_chunk); !k) return k;
    const auto transfer = r.u32();
    const auto frame = r.u32();
    const auto total = r.u32();
    const auto offset = r.u32();
    const auto len = r.u16();
    const auto b = r.bytes(len);
    if (auto e = expect_end(r); !e) return e;
    if (len > limits::snapshot_chunk) return error{errc::too_large, "chunk longer than 1000 bytes", 17};
    if (total > limits::max_snapshot) return error{errc::too_large, "transfer larger than 64 MiB", 9};
    if (offset > total || total - offset < len) return error{errc::corrupt, "chunk runs past the transfer's total", 13};
    m.transfer = transfer;
    m.frame = frame;
    m.total = total;
    m.offset = offset;
    m.bytes.assign(b.begin(), b.end());
    return {};
}

// ----------------------------------------------------------------------------------- desync

namespace {
/// Appends a stage list: `u8 n` then, when n > 0, `u64 names, u64 start, n × u64 after`.
void put_stages(internal::byte_writer &w, const stage_hashes &h) {
    const std::size_t n = std::min(h.after.size(), limits::max_stages);
    w.u8(static_cast<std::uint8_t>(n));
    if (n == 0) return;
    w.u64(h.names);
    w.u64(h.start);
    for (std::size_t i = 0; i < n; ++i) w.u64(h.after[i]);
}

/// Reads a stage list's header (`n`, `names`, `start`); the caller checks n and reads the
/// hashes once the message is accepted, so a rejection allocates nothing.
struct stage_list {
    std::size_t n = 0;
    std::uint64_t names = 0, start = 0;
    std::size_t at = 0; // offset of the first `after` hash
};
stage_list read_stages(reader &r) {
    stage_list l;
    l.n = r.u8();
    if (l.n == 0) return l;
    l.names = r.u64();
    l.start = r.u64();
    l.at = static_cast<std::size_t>(r.offset());
    (void)r.bytes(l.n * 8u);
    return l;
}
void take_stages(std::span<const std::byte> in, const stage_list &l, stage_hashes &h) {
    h.names = l.names;
    h.start = l.start;
    h.after.resize(l.n);
    reader r{in.subspan(l.at, l.n * 8u)};
    for (auto &a : h.after) a = r.u64();
}
constexpr const char *stages_text = "more than 128 stages";
static_assert(limits::max_stages == 128, "update stages_text");
} // namespace

void encode(const desync_msg &m, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::desync);
    w.u32(m.frame);
    w.text16(m.diverging, limits::max_text);
    w.u8(m.stage);
    w.u8(m.stage_count);
    put_stages(w, m.server);
}

result<void> decode(std::span<const std::byte> in, desync_msg &m) {
    reader r{in};
    if (auto k = expect_kind(in, r, message_kind::desync); !k) return k;
    const auto frame = r.u32();
    const auto text = text_bytes(r, r.u16(), limits::max_text, 5, "desync text longer than 512 bytes");
    if (!text) return text.err();
    const std::uint64_t stage_at = r.offset();
    const auto stage = r.u8();
    const auto count = r.u8();
    const std::uint64_t list_at = r.offset();
    const auto list = read_stages(r);
    if (auto e = expect_end(r); !e) return e;
    if (count > limits::max_stages) return error{errc::corrupt, "stage count above 128", stage_at + 1u};
    if (stage == stage_none ? count != 0 : stage != stage_start && stage >= count)
        return error{errc::corrupt, "diverging stage outside the stage count", stage_at};
    if (list.n > limits::max_stages) return error{errc::too_large, stages_text, list_at};
    m.frame = frame;
    m.diverging.assign(text->data(), text->size());
    m.stage = stage;
    m.stage_count = count;
    m.server = {};
    if (list.n > 0) take_stages(in, list, m.server);
    return {};
}

// ------------------------------------------------------------------------------ stage report

void encode(const stage_report_msg &m, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::stage_report);
    w.u32(m.frame);
    w.u8(m.upload_point);
    put_stages(w, m.client);
}

result<void> decode(std::span<const std::byte> in, stage_report_msg &m) {
    reader r{in};
    if (auto k = expect_kind(in, r, message_kind::stage_report); !k) return k;
    const auto frame = r.u32();
    const auto point = r.u8();
    const auto list = read_stages(r);
    if (auto e = expect_end(r); !e) return e;
    if (list.n == 0) return error{errc::corrupt, "stage report without stages", 6};
    if (list.n > limits::max_stages) return error{errc::too_large, stages_text, 6};
    if (point != stage_none && point != stage_start && point >= list.n)
        return error{errc::corrupt, "upload point outside the stages", 5};
    m.frame = frame;
    m.upload_point = point;
    take_stages(in, list, m.client);
    return {};
}

// -------------------------------------------------------------------------------------- bye

void encode(const bye_msg &m, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::bye);
    w.u8(m.reason);
}

result<void> decode(std::span<const std::byte> in, bye_msg &m) {
    reader r{in};
    if (auto k = expect_kind(in, r, message_kind::bye); !k) return k;
    const auto reason = r.u8();
    if (auto e = expect_end(r); !e) return e;
    m.reason = reason;
    return {};
}

} // namespace retcon::wire
