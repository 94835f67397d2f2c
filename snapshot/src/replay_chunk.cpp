#include "replay_chunk.hpp"

#include <retcon/internal/byte_io.hpp>

#include "xxh3.hpp"

namespace retcon::internal {

namespace {
constexpr std::size_t header_check_covers = 28;
constexpr std::size_t checksum_covers = 32;

std::uint32_t header_check_of(std::span<const std::byte> at) noexcept {
    return static_cast<std::uint32_t>(xxh3(at.first(header_check_covers)));
}
} // namespace

chunk_header read_chunk_header(std::span<const std::byte> at) noexcept {
    byte_reader r{at};
    chunk_header h;
    h.magic = r.u32();
    h.kind = static_cast<chunk_kind>(r.u8());
    h.codec = r.u8(); // reserved (0) in format 1
    r.u16();          // reserved
    h.frame = r.u64();
    h.count = r.u32();
    h.stored = r.u32();
    h.raw = r.u32();
    h.header_check = r.u32();
    h.checksum = r.u64();
    return h;
}

bool chunk_header_intact(std::span<const std::byte> at, const chunk_header &h) noexcept {
    return h.header_check == header_check_of(at);
}

std::span<const std::byte> chunk_payload(std::span<const std::byte> at, const chunk_header &h) noexcept {
    return at.subspan(chunk_header_size, h.stored);
}

bool chunk_checksum_matches(std::span<const std::byte> at, const chunk_header &h,
                            std::span<const std::byte> raw) noexcept {
    return xxh3_concat({at.first(checksum_covers), raw}) == h.checksum;
}

void encode_chunk(std::vector<std::byte> &out, chunk_kind kind, std::uint64_t frame, std::uint32_t count,
                  std::span<const std::byte> raw, std::span<const std::byte> compressed, std::uint8_t codec) {
    out.clear();
    byte_writer w{out};
    w.u32(chunk_magic);
    w.u8(static_cast<std::uint8_t>(kind));
    w.u8(codec);
    w.u16(0);
    w.u64(frame);
    w.u32(count);
    w.u32(static_cast<std::uint32_t>(compressed.size()));
    w.u32(static_cast<std::uint32_t>(raw.size()));
    w.u32(header_check_of(out));
    w.u64(xxh3_concat({std::span<const std::byte>(out).first(checksum_covers), raw}));
    w.bytes(compressed);
}

void encode_index(std::span<const index_entry> entries, std::vector<std::byte> &out) {
    out.clear();
    byte_writer w{out};
    w.u32(static_cast<std::uint32_t>(entries.size()));
    for (const auto &e : entries) {
        w.u64(e.frame);
        w.u64(e.offset);
        w.u8(static_cast<std::uint8_t>(e.kind));
        for (int i = 0; i < 7; ++i) w.u8(0);
    }
}

bool index_lists(std::span<const std::byte> raw, std::span<const index_entry> chunks) {
    byte_reader r{raw};
    const auto n = r.u32();
    if (n != chunks.size() || raw.size() != 4u + index_entry_size * std::uint64_t{n}) return false;
    for (const auto &expected : chunks) {
        index_entry e;
        e.frame = r.u64();
        e.offset = r.u64();
        e.kind = static_cast<chunk_kind>(r.u8());
        r.bytes(7); // reserved
        if (!r.ok() || e != expected) return false;
    }
    return true;
}

void encode_trailer(std::uint64_t index_offset, std::vector<std::byte> &out) {
    out.clear();
    byte_writer w{out};
    w.u64(index_offset);
    w.u32(trailer_magic);
    w.u32(0);
}

trailer read_trailer(std::span<const std::byte> at) noexcept {
    byte_reader r{at};
    trailer t;
    t.index_offset = r.u64();
    t.magic = r.u32();
    t.reserved = r.u32();
    return t;
}

} // namespace retcon::internal
