#ifndef RETCON_SNAPSHOT_SRC_REPLAY_CHUNK_HPP
#define RETCON_SNAPSHOT_SRC_REPLAY_CHUNK_HPP

// The framing of a replay file after its header (docs/file-format.md, "Replay files"): chunks
// (a 40-byte chunk header, then one zstd frame), the seek index payload and the trailer, as the
// replay writer and reader share them. Internal: never installed.
#include <retcon/ecs/frame.hpp>
#include <retcon/snapshot/hash.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace retcon::internal {

/// @brief Bytes of a chunk header.
inline constexpr std::size_t chunk_header_size = 40;
/// @brief Bytes of the trailer that ends a finished file.
inline constexpr std::size_t trailer_size = 16;
/// @brief "RCCK": the start of every chunk.
inline constexpr std::uint32_t chunk_magic = 0x4b434352u;
/// @brief "RCRE": the trailer's magic.
inline constexpr std::uint32_t trailer_magic = 0x45524352u;

/// @brief What a chunk holds (its frame and count fields mean something per kind).
enum class chunk_kind : std::uint8_t { full_keyframe = 1, delta_keyframe = 2, frames = 3, index = 4 };

/// @brief A chunk header as read (docs/file-format.md, "Chunk").
struct chunk_header {
    std::uint32_t magic = 0;
    chunk_kind kind{};
    std::uint8_t codec = 0; ///< keyframes (format 2): keyframe_codec; 0 for every other chunk
    std::uint64_t frame = 0;
    std::uint32_t count = 0;
    std::uint32_t stored = 0;       ///< compressed payload bytes after the header
    std::uint32_t raw = 0;          ///< payload bytes once decompressed
    std::uint32_t header_check = 0; ///< low 32 bits of XXH3 over header bytes 0..27
    std::uint64_t checksum = 0;     ///< XXH3 over header bytes 0..31, then the raw payload
};

/// @brief Reads the chunk header at the start of @p at, which holds at least chunk_header_size bytes.
[[nodiscard]] chunk_header read_chunk_header(std::span<const std::byte> at) noexcept;

/// @brief True if @p h's header check matches the first 28 bytes of @p at (the header is intact,
/// so its length fields can be trusted to tell a damaged chunk from a chunk cut short by a crash).
[[nodiscard]] bool chunk_header_intact(std::span<const std::byte> at, const chunk_header &h) noexcept;

/// @brief The stored (compressed) payload of the chunk starting at @p at.
[[nodiscard]] std::span<const std::byte> chunk_payload(std::span<const std::byte> at, const chunk_header &h) noexcept;

/// @brief True if @p raw, the decompressed payload of the chunk starting at @p at, matches its checksum.
[[nodiscard]] bool chunk_checksum_matches(std::span<const std::byte> at, const chunk_header &h,
                                          std::span<const std::byte> raw) noexcept;

/// @brief Replaces @p out with one chunk: the header for @p raw (its checks and checksum
/// computed; @p codec in byte 5), then @p compressed, the zstd frame of @p raw.
void encode_chunk(std::vector<std::byte> &out, chunk_kind kind, std::uint64_t frame, std::uint32_t count,
                  std::span<const std::byte> raw, std::span<const std::byte> compressed, std::uint8_t codec = 0);

/// @brief One seek index entry: a chunk's kind, frame field and file offset.
struct index_entry {
    chunk_kind kind{};
    std::uint64_t frame = 0;
    std::uint64_t offset = 0;
    friend bool operator==(const index_entry &, const index_entry &) = default;
};

/// @brief Bytes of one index entry in the index payload.
inline constexpr std::size_t index_entry_size = 24;

/// @brief Replaces @p out with the index payload listing @p entries.
void encode_index(std::span<const index_entry> entries, std::vector<std::byte> &out);

/// @brief True if the index payload @p raw lists exactly @p chunks (the chunks a reader scanned).
[[nodiscard]] bool index_lists(std::span<const std::byte> raw, std::span<const index_entry> chunks);

/// @brief The trailer: where the index chunk starts.
struct trailer {
    std::uint64_t index_offset = 0;
    std::uint32_t magic = 0;
    std::uint32_t reserved = 0;
};

/// @brief Replaces @p out with the trailer pointing at @p index_offset.
void encode_trailer(std::uint64_t index_offset, std::vector<std::byte> &out);
/// @brief Reads the trailer at the start of @p at (at least trailer_size bytes).
[[nodiscard]] trailer read_trailer(std::span<const std::byte> at) noexcept;

/// @brief Bytes of one frame record in a frames chunk: each player's flags and input, then the
/// u64 world hash after the frame.
[[nodiscard]] constexpr std::size_t frame_record_size(std::uint32_t players, std::uint32_t input_size) noexcept {
    return input_record_size(players, input_size) + 8u;
}

} // namespace retcon::internal

#endif
