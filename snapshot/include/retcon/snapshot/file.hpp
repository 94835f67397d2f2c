#ifndef RETCON_SNAPSHOT_FILE_HPP
#define RETCON_SNAPSHOT_FILE_HPP

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include <retcon/ecs/schema.hpp>
#include <retcon/ecs/world.hpp>

#include "error.hpp"
#include "image.hpp"

namespace retcon {

/// @brief Caps applied by every file reader before it allocates (hostile input).
///
/// A file is read whole into memory, so `max_file_bytes` is also what opening one may cost: 1 GiB,
/// the size of the largest image a reader accepts (a snapshot file is smaller than its image
/// compressed; a replay of hours of play is a few hundred MiB at most). Raise it to open larger ones.
struct read_limits {
    std::uint64_t max_file_bytes = std::uint64_t{1} << 30;  ///< refuse larger files outright
    std::uint64_t max_image_bytes = std::uint64_t{1} << 30; ///< refuse larger decompressed images
};

/// @brief "RCSF" read as a little-endian u32: a snapshot file.
inline constexpr std::uint32_t snapshot_file_magic = 0x46534352u;
/// @brief Current snapshot file format version.
inline constexpr std::uint16_t snapshot_file_version = 1;

/**
 * @brief The validated contents of a snapshot file (`.rcs`).
 *
 * A snapshot file holds a 64-byte header, the full schema block (so tools can name pools and
 * fields without the game's code), and the zstd-compressed world image, with XXH3 checksums of
 * the header + schema and of the uncompressed image (docs/file-format.md).
 */
struct snapshot_file {
    retcon::schema schema{};      ///< the schema embedded in the file
    world_image image{};          ///< the decompressed, validated world image
    std::uint64_t frame = 0;      ///< frame the snapshot was taken at
    std::uint64_t file_bytes = 0; ///< size on disk
    std::uint64_t compressed_bytes = 0;
    std::uint32_t level = 0; ///< zstd level it was written with
};

/// @brief Writes @p w as a snapshot file, atomically (temp file, fsync, rename).
result<void> write_snapshot_file(const std::filesystem::path &path, const world &w, std::uint64_t frame, int level = 3);

/// @brief Writes an existing image of a world with schema @p s as a snapshot file, atomically.
result<void> write_snapshot_file(const std::filesystem::path &path, const world_image &image, const schema &s,
                                 int level = 3);

/// @brief The bytes of a snapshot file (what write_snapshot_file writes).
[[nodiscard]] std::vector<std::byte> encode_snapshot_file(const world_image &image, const schema &s, int level = 3);

/**
 * @brief Reads and fully validates a snapshot file: header, checksums, schema block, size
 * limits (before allocating), decompression, image structure. Errors name the file, the byte
 * offset and what was wrong.
 */
result<snapshot_file> read_snapshot_file(const std::filesystem::path &path, const read_limits &limits = {});

/// @brief read_snapshot_file over bytes already in memory; @p name is used in messages.
result<snapshot_file> parse_snapshot_file(std::span<const std::byte> bytes, const std::string &name,
                                          const read_limits &limits = {});

/// @brief Reads a snapshot file and restores it into @p w, whose schema must match. Returns the
/// snapshot's frame; on error @p w is unchanged. Another schema is errc::schema_mismatch; so is
/// a file saved with another simulation semantics (restored, it would go on simulating
/// differently), named by `check_simulation`'s text.
result<std::uint64_t> load_snapshot_file(const std::filesystem::path &path, world &w, const read_limits &limits = {});

} // namespace retcon

#endif
