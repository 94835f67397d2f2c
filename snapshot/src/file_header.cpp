#include "file_header.hpp"

#include <retcon/internal/byte_io.hpp>
#include <retcon/snapshot/file.hpp>
#include <retcon/snapshot/replay.hpp>

#include "value_text.hpp"
#include "xxh3.hpp"

namespace retcon::internal {

const file_format snapshot_format{snapshot_file_magic, snapshot_file_version, "snapshot", false};
// Replay format 1 (keyframes zstd only) stays readable (docs/file-format.md, "Keyframe codecs").
const file_format replay_format{replay_file_magic, replay_file_version, "replay", true, 1};

std::string at_byte(const std::string &name, std::uint64_t offset) {
    return name + " at byte " + std::to_string(offset) + ": ";
}

void write_file_header(std::vector<std::byte> &out, const file_format &format, std::uint64_t schema_hash,
                       std::uint64_t frame, std::span<const std::byte> format_fields,
                       std::span<const std::byte> schema_block, std::span<const std::byte> extra_block) {
    RETCON_ASSERT(format_fields.size() == format_fields_size, "a file format has 28 bytes of its own fields");
    const std::size_t start = out.size();
    byte_writer w{out};
    w.u32(format.magic);
    w.u16(format.version);
    w.u16(static_cast<std::uint16_t>(file_header_size));
    w.u64(schema_hash);
    w.u64(frame);
    w.u32(static_cast<std::uint32_t>(schema_block.size()));
    w.bytes(format_fields);
    const auto covered = std::span<const std::byte>(out).subspan(start, header_checksum_offset);
    w.u64(xxh3_concat({covered, schema_block, extra_block}));
    w.bytes(schema_block);
    w.bytes(extra_block);
}

result<file_header> read_file_header(std::span<const std::byte> bytes, const file_format &format,
                                     const std::string &name) {
    byte_reader r{bytes};
    const auto magic = r.u32();
    const auto version = r.u16();
    const auto header_size = r.u16();
    file_header h;
    h.schema_hash = r.u64();
    h.frame = r.u64();
    h.schema_size = r.u32();
    const auto fields = r.bytes(format_fields_size);
    h.checksum = r.u64();
    if (!r.ok())
        return error{errc::truncated, at_byte(name, bytes.size()) + "file of " + std::to_string(bytes.size()) +
                                          " bytes is shorter than the 64-byte " + format.noun + " header"};
    if (magic == byte_swapped(format.magic)) return error{errc::bad_magic, at_byte(name, 0) + byte_swapped_note};
    if (magic != format.magic)
        return error{errc::bad_magic, at_byte(name, 0) + "not a retcon " + format.noun + " file (bad magic)"};
    const std::uint16_t oldest = format.oldest == 0 ? format.version : format.oldest;
    if (version < oldest || version > format.version)
        return error{errc::bad_version,
                     at_byte(name, 4) + "format version " + std::to_string(version) + ", this build reads " +
                         (oldest == format.version ? std::to_string(format.version)
                                                   : std::to_string(oldest) + " to " + std::to_string(format.version))};
    if (header_size != file_header_size)
        return error{errc::corrupt, at_byte(name, 6) + "header size " + std::to_string(header_size) + ", expected 64"};
    h.version = version;
    std::copy(fields.begin(), fields.end(), h.format_fields.begin());
    return h;
}

result<header_blocks> read_header_blocks(std::span<const std::byte> bytes, const file_header &header,
                                         std::uint64_t extra_size, const file_format &format, const std::string &name) {
    byte_reader r{bytes.subspan(file_header_size), file_header_size};
    header_blocks b;
    b.schema_block = r.bytes(header.schema_size);
    b.extra_block = r.bytes(static_cast<std::size_t>(extra_size));
    if (!r.ok())
        return error{errc::truncated,
                     at_byte(name, file_header_size) + (format.has_metadata
                                                            ? std::string("schema or metadata block runs past the end")
                                                            : "schema block of " + std::to_string(header.schema_size) +
                                                                  " bytes runs past the end of the file")};
    b.end = r.offset();
    if (xxh3_concat({bytes.first(header_checksum_offset), b.schema_block, b.extra_block}) != header.checksum)
        return error{errc::checksum,
                     at_byte(name, header_checksum_offset) +
                         (format.has_metadata ? "header checksum mismatch (header, schema or metadata damaged)"
                                              : "header checksum mismatch (header or schema block damaged)")};
    return b;
}

result<schema> parse_schema_block(const header_blocks &blocks, const file_header &header, const std::string &name) {
    auto sch = schema::parse(blocks.schema_block);
    if (!sch) return error{errc::corrupt, at_byte(name, file_header_size) + sch.message()};
    if (sch->hash() != header.schema_hash)
        return error{errc::corrupt, at_byte(name, 8) + "header schema hash " + hex64(header.schema_hash) +
                                        " does not match the schema block's " + hex64(sch->hash())};
    return sch;
}

magic_kind identify_magic(std::uint32_t magic) noexcept {
    if (magic == snapshot_file_magic) return magic_kind::snapshot;
    if (magic == replay_file_magic) return magic_kind::replay;
    if (magic == byte_swapped(snapshot_file_magic) || magic == byte_swapped(replay_file_magic))
        return magic_kind::byte_swapped;
    return magic_kind::unknown;
}

} // namespace retcon::internal
