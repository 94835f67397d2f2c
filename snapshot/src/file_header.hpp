#ifndef RETCON_SNAPSHOT_SRC_FILE_HEADER_HPP
#define RETCON_SNAPSHOT_SRC_FILE_HEADER_HPP

// The 64-byte header both retcon file formats start with (docs/file-format.md, "Snapshot files"
// and "Replay files"), its schema block and, for replays, the metadata block after it. One
// reader and one writer for .rcs and .rcr, and the magic-number sniffing of `retcon inspect`.
// Internal: never installed.
//
//   0 u32 magic          4 u16 version          6 u16 header size (64)
//   8 u64 schema hash   16 u64 frame (.rcs: the snapshot's, .rcr: the start frame)
//  24 u32 schema block size N
//  28 28 bytes: the format's own fields (snapshot_file.cpp, replay_header.cpp)
//  56 u64 header checksum: XXH3-64 of bytes 0..55, the schema block and the extra block
//  64 N bytes schema block, then the extra block (.rcr: metadata; .rcs: none)
#include <retcon/ecs/schema.hpp>
#include <retcon/snapshot/error.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace retcon::internal {

/// @brief What distinguishes the two formats' headers.
struct file_format {
    std::uint32_t magic = 0;
    std::uint16_t version = 0;
    const char *noun = "";     ///< "snapshot" or "replay", for messages
    bool has_metadata = false; ///< an extra (metadata) block follows the schema block
    std::uint16_t oldest = 0;  ///< the oldest version a reader still reads (0: only `version`)
};

/// @brief `.rcs` (file.hpp).
extern const file_format snapshot_format;
/// @brief `.rcr` (replay.hpp).
extern const file_format replay_format;

/// @brief Bytes of the header.
inline constexpr std::size_t file_header_size = 64;
/// @brief Where the format's own fields start, and how many bytes they take.
inline constexpr std::size_t format_fields_offset = 28;
inline constexpr std::size_t format_fields_size = 28;
/// @brief Where the header checksum is; the bytes before it are covered by it.
inline constexpr std::size_t header_checksum_offset = 56;

/// @brief The fields of a header common to both formats, and the format's own 28 bytes raw.
struct file_header {
    std::uint16_t version = 0; ///< the file's format version (`oldest`..`version` of its format)
    std::uint64_t schema_hash = 0;
    std::uint64_t frame = 0; ///< .rcs: the snapshot's frame; .rcr: the start frame
    std::uint32_t schema_size = 0;
    std::array<std::byte, format_fields_size> format_fields{};
    std::uint64_t checksum = 0;
};

/**
 * @brief Appends a header of @p format, then @p schema_block and @p extra_block, to @p out. The
 * checksum covers the header's first 56 bytes and both blocks. @p format_fields must be exactly
 * format_fields_size bytes.
 */
void write_file_header(std::vector<std::byte> &out, const file_format &format, std::uint64_t schema_hash,
                       std::uint64_t frame, std::span<const std::byte> format_fields,
                       std::span<const std::byte> schema_block, std::span<const std::byte> extra_block = {});

/**
 * @brief Reading, step 1: the 64 header bytes. Errors, in order: fewer than 64 bytes
 * (`truncated`), a byte-swapped or another magic (`bad_magic`), a version this build does not read (`bad_version`),
 * a header size other than 64 (`corrupt`). @p name prefixes every message with the byte offset.
 */
result<file_header> read_file_header(std::span<const std::byte> bytes, const file_format &format,
                                     const std::string &name);

/// @brief The blocks after the header, as views into the file's bytes.
struct header_blocks {
    std::span<const std::byte> schema_block;
    std::span<const std::byte> extra_block;
    std::uint64_t end = 0; ///< offset of the first byte after them
};

/// @brief Reading, step 2: the schema block and @p extra_size bytes of extra block are all there
/// (`truncated`) and match the header checksum (`checksum`).
result<header_blocks> read_header_blocks(std::span<const std::byte> bytes, const file_header &header,
                                         std::uint64_t extra_size, const file_format &format, const std::string &name);

/// @brief Reading, step 3: the schema block parses and hashes to the header's schema hash.
/// Both failures are `corrupt`: a bad block inside a checksummed header is a corrupt file,
/// whatever the block's own code.
result<schema> parse_schema_block(const header_blocks &blocks, const file_header &header, const std::string &name);

/// @brief What a file's first four bytes say it is.
enum class magic_kind : std::uint8_t { unknown, snapshot, replay, byte_swapped };

/// @brief Sorts a magic number read little-endian: a retcon format, a retcon format written by a
/// big-endian host (refused, but named), or something else.
[[nodiscard]] magic_kind identify_magic(std::uint32_t magic) noexcept;

/// @brief The text of the byte-swapped-magic error, after its "name at byte 0: " prefix.
inline constexpr const char *byte_swapped_note =
    "written by a big-endian host (magic byte-swapped); retcon files are little-endian only (docs/determinism.md)";

/// @brief "name at byte N: ", the prefix of every file reader's messages.
[[nodiscard]] std::string at_byte(const std::string &name, std::uint64_t offset);

} // namespace retcon::internal

#endif
