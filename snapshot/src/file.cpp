#include <retcon/snapshot/file.hpp>

#include <retcon/snapshot/hash.hpp>

#include <cstdio>
#include <string>

#include <retcon/internal/byte_io.hpp>
#include "codec.hpp"
#include "fs.hpp"

namespace retcon {

namespace {
constexpr std::size_t file_header_size = 64;

std::string at(const std::string &name, std::size_t offset) { return name + " at byte " + std::to_string(offset) + ": "; }

std::string hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}
} // namespace

std::vector<std::byte> encode_snapshot_file(const world_image &image, const schema &s, int level) {
    const auto schema_bytes = s.serialize();
    std::vector<std::byte> compressed;
    internal::compress(image.bytes(), level, compressed);
    std::vector<std::byte> out;
    out.reserve(file_header_size + schema_bytes.size() + compressed.size());
    internal::byte_writer w{out};
    w.u32(snapshot_file_magic);
    w.u16(snapshot_file_version);
    w.u16(file_header_size);
    w.u64(s.hash());
    w.u64(image.frame());
    w.u32(static_cast<std::uint32_t>(schema_bytes.size()));
    w.u32(static_cast<std::uint32_t>(level));
    w.u64(image.size());
    w.u64(compressed.size());
    w.u64(xxh3(image.bytes()));
    w.u64(0); // header checksum, patched below
    w.bytes(schema_bytes);
    const auto covered_head = std::span<const std::byte>(out).first(56);
    std::vector<std::byte> check(covered_head.begin(), covered_head.end());
    check.insert(check.end(), schema_bytes.begin(), schema_bytes.end());
    w.patch_u64(56, xxh3(check));
    w.bytes(compressed);
    return out;
}

result<void> write_snapshot_file(const std::filesystem::path &path, const world_image &image, const schema &s, int level) {
    if (image.empty()) return {errc::invalid_argument, path.string() + ": refusing to write an empty snapshot"};
    if (image.header().schema_hash != s.hash())
        return {errc::schema_mismatch, path.string() + ": the image was saved with schema " +
                                           hex(image.header().schema_hash) + ", not " + hex(s.hash())};
    return internal::write_file_atomic(path, encode_snapshot_file(image, s, level));
}

result<void> write_snapshot_file(const std::filesystem::path &path, const world &w, std::uint64_t frame, int level) {
    return write_snapshot_file(path, save(w, frame), w.get_schema(), level);
}

result<snapshot_file> parse_snapshot_file(std::span<const std::byte> bytes, const std::string &name,
                                          const read_limits &limits) {
    internal::byte_reader r{bytes};
    const auto magic = r.u32();
    const auto version = r.u16();
    const auto header_size = r.u16();
    const auto schema_hash = r.u64();
    const auto frame = r.u64();
    const auto schema_size = r.u32();
    const auto level = r.u32();
    const auto image_size = r.u64();
    const auto compressed_size = r.u64();
    const auto image_checksum = r.u64();
    const auto header_checksum = r.u64();
    if (!r.ok())
        return error{errc::truncated, at(name, bytes.size()) + "file of " + std::to_string(bytes.size()) +
                                          " bytes is shorter than the 64-byte snapshot header"};
    if (magic == internal::byte_swapped(snapshot_file_magic))
        return error{errc::bad_magic, at(name, 0) + "written by a big-endian host (magic byte-swapped); retcon files "
                                                    "are little-endian only (docs/determinism.md)"};
    if (magic != snapshot_file_magic) return error{errc::bad_magic, at(name, 0) + "not a retcon snapshot file (bad magic)"};
    if (version != snapshot_file_version)
        return error{errc::bad_version, at(name, 4) + "format version " + std::to_string(version) +
                                            ", this build reads " + std::to_string(snapshot_file_version)};
    if (header_size != file_header_size)
        return error{errc::corrupt, at(name, 6) + "header size " + std::to_string(header_size) + ", expected 64"};
    auto schema_bytes = r.bytes(schema_size);
    if (!r.ok())
        return error{errc::truncated, at(name, file_header_size) + "schema block of " + std::to_string(schema_size) +
                                          " bytes runs past the end of the file"};
    {
        std::vector<std::byte> check(bytes.begin(), bytes.begin() + 56);
        check.insert(check.end(), schema_bytes.begin(), schema_bytes.end());
        if (xxh3(check) != header_checksum)
            return error{errc::checksum, at(name, 56) + "header checksum mismatch (header or schema block damaged)"};
    }
    // A bad block inside a checksummed header is a corrupt file, whatever the block's own code.
    auto sch = schema::parse(schema_bytes);
    if (!sch) return error{errc::corrupt, at(name, file_header_size) + sch.message()};
    if (sch->hash() != schema_hash)
        return error{errc::corrupt, at(name, 8) + "header schema hash " + hex(schema_hash) +
                                        " does not match the schema block's " + hex(sch->hash())};
    if (image_size > limits.max_image_bytes)
        return error{errc::too_large, at(name, 32) + "image of " + std::to_string(image_size) +
                                          " bytes exceeds the limit of " + std::to_string(limits.max_image_bytes)};
    if (compressed_size != r.remaining())
        return error{r.remaining() < compressed_size ? errc::truncated : errc::corrupt,
                     at(name, r.offset()) + "compressed image should be " + std::to_string(compressed_size) +
                         " bytes, the file has " + std::to_string(r.remaining()) + " left"};
    auto compressed = r.bytes(compressed_size);
    // The zstd frame must declare the same size before the image buffer is allocated (a forged
    // header must not make the reader allocate up to the limit).
    if (auto c = internal::check_content_size(compressed, image_size, at(name, file_header_size + schema_size) + "image");
        !c)
        return c.err();

    snapshot_file out;
    out.schema = std::move(*sch);
    out.frame = frame;
    out.file_bytes = bytes.size();
    out.compressed_bytes = compressed_size;
    out.level = level;
    std::byte *dst = out.image.prepare(static_cast<std::size_t>(image_size));
    if (auto d = internal::decompress(compressed, {dst, static_cast<std::size_t>(image_size)},
                                      at(name, file_header_size + schema_size) + "image");
        !d)
        return d.err();
    if (xxh3(out.image.bytes()) != image_checksum)
        return error{errc::checksum, at(name, 48) + "image checksum mismatch (compressed data damaged)"};
    // Structural validation against the embedded schema, before anyone restores it.
    const world probe{out.schema};
    if (auto v = validate_image(probe, out.image.bytes()); !v)
        return error{v.code(), at(name, file_header_size + schema_size) + v.message()};
    if (out.image.header().frame != frame)
        return error{errc::corrupt, at(name, 16) + "header frame " + std::to_string(frame) +
                                        " differs from the image's " + std::to_string(out.image.header().frame)};
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
    if (file->schema.hash() != w.schema_hash()) {
        std::string why;
        for (const auto &d : schema::differences(file->schema, w.get_schema())) why += "; " + d;
        return error{errc::schema_mismatch, path.string() + ": saved with schema " + hex(file->schema.hash()) +
                                                ", the world's is " + hex(w.schema_hash()) + why};
    }
    if (auto r = restore(w, file->image); !r) return r.err();
    return file->frame;
}

} // namespace retcon
