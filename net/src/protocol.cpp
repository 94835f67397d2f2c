#include <retcon/net/protocol.hpp>

#include <retcon/internal/byte_io.hpp>

#include <cstring>

namespace retcon::wire {

namespace {

using reader = internal::byte_reader;

/// Starts a message: clears @p out and returns a writer for it.
internal::byte_writer start(std::vector<std::byte> &out, message_kind kind) {
    out.clear();
    internal::byte_writer w{out};
    w.u8(static_cast<std::uint8_t>(kind));
    return w;
}

bool expect_kind(reader &r, message_kind k) { return r.u8() == static_cast<std::uint8_t>(k); }

// Zero-run coding: a non-zero byte stands for itself; 0x00 n stands for n+1 zero bytes.
void rle_append(std::vector<std::byte> &out, std::span<const std::byte> raw) {
    std::size_t i = 0;
    while (i < raw.size()) {
        if (raw[i] != std::byte{0}) {
            out.push_back(raw[i++]);
            continue;
        }
        std::size_t run = 1;
        while (i + run < raw.size() && raw[i + run] == std::byte{0} && run < 256) ++run;
        out.push_back(std::byte{0});
        out.push_back(std::byte(static_cast<std::uint8_t>(run - 1)));
        i += run;
    }
}

bool rle_decode(std::span<const std::byte> in, std::size_t expected, std::vector<std::byte> &out) {
    out.clear();
    for (std::size_t i = 0; i < in.size();) {
        if (in[i] != std::byte{0}) {
            if (out.size() == expected) return false;
            out.push_back(in[i++]);
            continue;
        }
        if (i + 1 >= in.size()) return false;
        const std::size_t run = static_cast<std::size_t>(in[i + 1]) + 1u;
        if (out.size() + run > expected) return false;
        out.insert(out.end(), run, std::byte{0});
        i += 2;
    }
    return out.size() == expected;
}

} // namespace

void encode_inputs(std::span<const std::byte> inputs, std::span<const std::byte> base, std::size_t input_size,
                   std::vector<std::byte> &out) {
    thread_local std::vector<std::byte> x;
    x.resize(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const std::byte prev = i < input_size ? (i < base.size() ? base[i] : std::byte{0}) : inputs[i - input_size];
        x[i] = inputs[i] ^ prev;
    }
    out.clear();
    rle_append(out, x);
}

bool decode_inputs(std::span<const std::byte> encoded, std::span<const std::byte> base, std::size_t input_size,
                   std::size_t count, std::vector<std::byte> &out) {
    if (input_size == 0 || count * input_size > limits::max_frames_per_packet * limits::max_players * (limits::max_input_size + 1u))
        return false;
    if (!rle_decode(encoded, count * input_size, out)) return false;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::byte prev = i < input_size ? (i < base.size() ? base[i] : std::byte{0}) : out[i - input_size];
        out[i] ^= prev;
    }
    return true;
}

std::uint8_t peek_kind(std::span<const std::byte> packet) noexcept {
    return packet.empty() ? 0 : static_cast<std::uint8_t>(packet[0]);
}

void encode(const hello_msg &m, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::hello);
    w.u16(m.version);
    w.u64(m.schema_hash);
    w.u64(m.input_layout_hash);
    w.u64(m.content_version);
    w.u16(m.tick_hz);
    w.u16(m.input_size);
    w.u8(m.max_players);
    w.u8(m.spectator ? 1 : 0);
    w.u64(m.reconnect_token);
    w.text8(m.name, limits::max_name);
}

bool decode(std::span<const std::byte> in, hello_msg &m) {
    reader r{in};
    if (!expect_kind(r, message_kind::hello)) return false;
    m.version = r.u16();
    m.schema_hash = r.u64();
    m.input_layout_hash = r.u64();
    m.content_version = r.u64();
    m.tick_hz = r.u16();
    m.input_size = r.u16();
    m.max_players = r.u8();
    const auto flags = r.u8();
    m.spectator = (flags & 1u) != 0;
    m.reconnect_token = r.u64();
    m.name = r.text(r.u8(), limits::max_name);
    return r.done() && flags <= 1u;
}

void encode(const welcome_msg &m, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::welcome);
    w.u8(m.slot);
    w.u8(m.max_players);
    w.u8(m.input_delay);
    w.u16(m.tick_hz);
    w.u32(m.server_frame);
    w.u64(m.token);
}

bool decode(std::span<const std::byte> in, welcome_msg &m) {
    reader r{in};
    if (!expect_kind(r, message_kind::welcome)) return false;
    m.slot = r.u8();
    m.max_players = r.u8();
    m.input_delay = r.u8();
    m.tick_hz = r.u16();
    m.server_frame = r.u32();
    m.token = r.u64();
    return r.done() && m.max_players >= 1 && m.max_players <= limits::max_players &&
           (m.slot == 0xff || m.slot < m.max_players) && m.tick_hz > 0;
}

void encode(const reject_msg &m, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::reject);
    w.u8(static_cast<std::uint8_t>(m.reason));
    w.text16(m.text, limits::max_text);
}

bool decode(std::span<const std::byte> in, reject_msg &m) {
    reader r{in};
    if (!expect_kind(r, message_kind::reject)) return false;
    const auto reason = r.u8();
    m.reason = static_cast<reject_reason>(reason);
    m.text = r.text(r.u16(), limits::max_text);
    return r.done() && reason >= 1 && reason <= 8;
}

void encode(const input_msg &m, std::size_t input_size, std::span<const std::byte> base, std::vector<std::byte> &out) {
    thread_local std::vector<std::byte> payload;
    encode_inputs(m.inputs, base, input_size, payload);
    auto w = start(out, message_kind::input);
    w.u8(m.slot);
    w.u32(m.ack_confirmed);
    w.u32(m.first_frame);
    w.u8(m.count);
    w.u32(m.client_time_ms);
    w.u32(m.checksum_frame);
    w.u64(m.checksum);
    w.u16(static_cast<std::uint16_t>(payload.size()));
    w.bytes(payload);
}

bool decode_header(std::span<const std::byte> in, input_msg &m) {
    reader r{in};
    if (!expect_kind(r, message_kind::input)) return false;
    m.slot = r.u8();
    m.ack_confirmed = r.u32();
    m.first_frame = r.u32();
    m.count = r.u8();
    m.client_time_ms = r.u32();
    m.checksum_frame = r.u32();
    m.checksum = r.u64();
    const auto len = r.u16();
    r.bytes(len);
    return r.done() && m.count <= limits::max_frames_per_packet && m.first_frame <= ~std::uint32_t{0} - m.count;
}

bool decode(std::span<const std::byte> in, std::size_t input_size, std::span<const std::byte> base, input_msg &m) {
    if (!decode_header(in, m)) return false;
    reader r{in.subspan(1 + 1 + 4 + 4 + 1 + 4 + 4 + 8)};
    const auto len = r.u16();
    const auto payload = r.bytes(len);
    return r.done() && decode_inputs(payload, base, input_size, m.count, m.inputs);
}

void encode(const confirmed_msg &m, std::size_t input_size, std::span<const std::byte> base, std::vector<std::byte> &out) {
    thread_local std::vector<std::byte> payload;
    encode_inputs(m.frames, m.base ? base : std::span<const std::byte>{}, std::size_t{m.players} * (1u + input_size),
                  payload);
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
    w.u16(static_cast<std::uint16_t>(payload.size()));
    w.bytes(payload);
}

bool decode_header(std::span<const std::byte> in, confirmed_msg &m) {
    reader r{in};
    if (!expect_kind(r, message_kind::confirmed)) return false;
    m.ack_input = r.u32();
    m.margin_ms = static_cast<std::int16_t>(r.u16());
    m.echo_time_ms = r.u32();
    m.hold_ms = r.u16();
    m.server_frame = r.u32();
    m.first_frame = r.u32();
    m.count = r.u8();
    m.players = r.u8();
    m.base = r.u8();
    const auto len = r.u16();
    r.bytes(len);
    return r.done() && m.count <= limits::max_frames_per_packet && m.players >= 1 && m.players <= limits::max_players &&
           m.base <= 1u &&
           m.first_frame <= ~std::uint32_t{0} - m.count;
}

bool decode(std::span<const std::byte> in, std::size_t input_size, std::span<const std::byte> base, confirmed_msg &m) {
    if (!decode_header(in, m)) return false;
    reader r{in.subspan(1 + 4 + 2 + 4 + 2 + 4 + 4 + 1 + 1 + 1)};
    const auto len = r.u16();
    const auto payload = r.bytes(len);
    return r.done() && decode_inputs(payload, m.base ? base : std::span<const std::byte>{},
                                     std::size_t{m.players} * (1u + input_size), m.count, m.frames);
}

void encode(const snapshot_chunk_msg &m, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::snapshot_chunk);
    w.u32(m.transfer);
    w.u32(m.frame);
    w.u32(m.total);
    w.u32(m.offset);
    w.u16(static_cast<std::uint16_t>(m.bytes.size()));
    w.bytes(m.bytes);
}

bool decode(std::span<const std::byte> in, snapshot_chunk_msg &m) {
    reader r{in};
    if (!expect_kind(r, message_kind::snapshot_chunk)) return false;
    m.transfer = r.u32();
    m.frame = r.u32();
    m.total = r.u32();
    m.offset = r.u32();
    const auto len = r.u16();
    const auto b = r.bytes(len);
    m.bytes.assign(b.begin(), b.end());
    return r.done() && len <= limits::snapshot_chunk && m.total <= limits::max_snapshot && m.offset <= m.total &&
           m.total - m.offset >= len;
}

void encode(const desync_msg &m, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::desync);
    w.u32(m.frame);
    w.text16(m.diverging, limits::max_text);
}

bool decode(std::span<const std::byte> in, desync_msg &m) {
    reader r{in};
    if (!expect_kind(r, message_kind::desync)) return false;
    m.frame = r.u32();
    m.diverging = r.text(r.u16(), limits::max_text);
    return r.done();
}

void encode(const bye_msg &m, std::vector<std::byte> &out) {
    auto w = start(out, message_kind::bye);
    w.u8(m.reason);
}

bool decode(std::span<const std::byte> in, bye_msg &m) {
    reader r{in};
    if (!expect_kind(r, message_kind::bye)) return false;
    m.reason = r.u8();
    return r.done();
}

} // namespace retcon::wire
