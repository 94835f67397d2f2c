#include <retcon/snapshot/file.hpp>

#include <retcon/snapshot/atomic_file.hpp>
#include <retcon/snapshot/hash.hpp>

#include <string>

#include <retcon/internal/byte_io.hpp>
#include "file_header.hpp"
#include "fs.hpp"
#include "value_text.hpp"
#include "zstd_codec.hpp"

namespace retcon {

namespace {

using internal::at_byte;
using internal::file_header_size;
using internal::hex64;

/// The snapshot file's own header fields (bytes 28..55, docs/file-format.md, "Snapshot files").
struct snapshot_fields {
    std::uint32_t level = 0;
    std::uint64_t image_size = 0;
    std::uint64_t compressed_size = 0;
    std::uint64_t image_checksum = 0;
};

std::vector<std::byte> encode_fields(const snapshot_fields &f) {
    std::vector<std::byte> out;
    internal::byte_writer w{out};
    w.u32(f.level);
    w.u64(f.image_size);
    w.u64(f.compressed_size);
    w.u64(f.image_checksum);
    return out;
}

snapshot_fields decode_fields(const internal::file_header &h) {
    internal::byte_reader r{h.format_fields};
    snapshot_fields f;
    f.level = r.u32();
    f.image_size = r.u64();
    f.compressed_size = r.u64();
    f.image_checksum = r.u64();
    return f;
}

/// Decompresses, checksums and validates the image that follows the header blocks.
result<void> read_image(std::span<const std::byte> compressed, const snapshot_fields &f, std::uint64_t at,
                        const std::string &name, snapshot_file &out) {
    // The zstd frame must declare the same size before the image buffer is allocated (a forged
    // header must not make the reader allocate up to the limit).
    if (auto c = internal::check_content_size(compressed, f.image_size, at_byte(name, at) + "image"); !c) return c;
    std::byte *dst = out.image.prepare(static_cast<std::size_t>(f.image_size));
    internal::zstd_codec codec; // one file, one frame: a context per call (see encode_snapshot_file)
    if (auto d =
            codec.decompress(compressed, {dst, static_cast<std::size_t>(f.image_size)}, at_byte(name, at) + "image");
        !d)
        return d;
    if (xxh3(out.image.bytes()) != f.image_checksum)
        return {errc::checksum, at_byte(name, 48) + "image checksum mismatch (compressed data damaged)"};
    // Structural validation against the embedded schema, before anyone restores it.
    const world probe{out.schema};
    if (auto v = validate_image(probe, out.image.bytes()); !v) return {v.code(), at_byte(name, at) + v.message()};
    if (out.image.header().frame != out.frame)
        return {errc::corrupt, at_byte(name, 16) + "header frame " + std::to_string(out.frame) +
                                   " differs from the image's " + std::to_string(out.image.header().frame)};
    return {};
}

} // namespace

std::vector<std::byte> encode_snapshot_file(const world_image &image, const schema &s, int level) {
    const auto schema_bytes = s.serialize();
    std::vector<std::byte> compressed;
    // A free function with nothing to own a context: one per call, as ZSTD_compress does. A
    // whole-file call allocates its output anyway, and snapshot_bench's zstd_file/unzstd_file
    // figures did not move against the per-thread context this replaced.
    internal::zstd_codec codec;
    codec.compress(image.bytes(), level, compressed);
    snapshot_fields f;
    f.level = static_cast<std::uint32_t>(level);
    f.image_size = image.size();
    f.compressed_size = compressed.size();
    f.image_checksum = xxh3(image.bytes());
    std::vector<std::byte> out;
    out.reserve(file_header_size + schema_bytes.size() + compressed.size());
    internal::write_file_header(out, internal::snapshot_format, s.hash(), image.frame(), encode_fields(f),
                                schema_bytes);
    out.insert(out.end(), compressed.begin(), compressed.end());
    return out;
}

result<void> write_snapshot_file(const std::filesystem::path &path, const world_image &image, const schema &s,
                                 int level) {
    if (image.empty()) return {errc::invalid_argument, path.string() + ": refusing to write an empty snapshot"};
    if (image.header().schema_hash != s.hash())
        return {errc::schema_mismatch, path.string() + ": the image was saved with schema " +
                                           hex64(image.header().schema_hash) + ", not " + hex64(s.hash())};
    return write_file_atomic(path, encode_snapshot_file(image, s, level));
}

result<void> write_snapshot_file(const std::filesystem::path &path, const world &w, std::uint64_t frame, int level) {
    return write_snapshot_file(path, save(w, frame), w.get_schema(), level);
}

result<snapshot_file> parse_snapshot_file(std::span<const std::byte> bytes, const std::string &name,
                                          const read_limits &limits) {
    const auto &format = internal::snapshot_format;
    auto head = internal::read_file_header(bytes, format, name);
    if (!head) return head.err();
    const snapshot_fields f = decode_fields(*head);
    auto blocks = internal::read_header_blocks(bytes, *head, 0, format, name);
    if (!blocks) return blocks.err();
    auto sch = internal::parse_schema_block(*blocks, *head, name);
    if (!sch) return sch.err();
    if (f.image_size > limits.max_image_bytes)
        return error{errc::too_large, at_byte(name, 32) + "image of " + std::to_string(f.image_size) +
                                          " bytes exceeds the limit of " + std::to_string(limits.max_image_bytes)};
    const std::uint64_t left = bytes.size() - blocks->end;
    if (f.compressed_size != left)
        return error{left < f.compressed_size ? errc::truncated : errc::corrupt,
                     at_byte(name, blocks->end) + "compressed image should be " + std::to_string(f.compressed_size) +
                         " bytes, the file has " + std::to_string(left) + " left"};
    snapshot_file out;
    out.schema = std::move(*sch);
    out.frame = head->frame;
    out.file_bytes = bytes.size();
    out.compressed_bytes = f.compressed_size;
    out.level = f.level;
    const auto compressed = bytes.subspan(static_cast<std::size_t>(blocks->end));
    if (auto r = read_image(compressed, f, blocks->end, name, out); !r) return r.err();
    return out;
}

result<snapshot_file> read_snapshot_file(const std::filesystem::path &path, const read_limits &limits) {
    auto bytes = internal::read_file(path, limits.max_file_bytes);
    if (!bytes) return bytes.err();
    return parse_snapshot_file(*bytes, path.string(), limits);
}

result<std::uint64_t> load_snapshot_file(const std::filesystem::path &path, world &w, const read_limits &limits) {
    auto file = read_snapshot_file(path, limits);
    if (!file) return file.err();
    // A world restored from another simulation semantics would go on differently from the one
    // that was saved. Its schema differs (the number is part of it), so the code is the one the
    // hashes would give; the text says why.
    if (auto s = check_simulation(file->schema); !s)
        return error{errc::schema_mismatch, path.string() + ": " + s.message()};
    if (file->schema.hash() != w.schema_hash()) {
        std::string why;
        for (const auto &d : schema::differences(file->schema, w.get_schema())) why += "; " + d;
        return error{errc::schema_mismatch, path.string() + ": saved with schema " + hex64(file->schema.hash()) +
                                                ", the world's is " + hex64(w.schema_hash()) + why};
    }
    if (auto r = restore(w, file->image); !r) return r.err();
    return file->frame;
}

} // namespace retcon
