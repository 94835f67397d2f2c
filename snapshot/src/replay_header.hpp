#ifndef RETCON_SNAPSHOT_SRC_REPLAY_HEADER_HPP
#define RETCON_SNAPSHOT_SRC_REPLAY_HEADER_HPP

// What a replay file's header holds beyond the header both formats share (file_header.hpp):
// the replay's own fields (metadata block size and settings, bytes 28..55), the settings'
// ranges and the metadata block (docs/file-format.md, "Replay files"). Internal: never installed.
#include <retcon/snapshot/error.hpp>
#include <retcon/snapshot/replay.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "file_header.hpp"

namespace retcon::internal {

/// @brief Most metadata entries, and most bytes in one key or value.
inline constexpr std::size_t max_metadata_entries = 1024;
inline constexpr std::size_t max_metadata_text = std::size_t{1} << 16;

/// @brief True if @p s is a layout a replay can have: players 1..256, input_size 1..4096,
/// intervals >= 1, frames_per_chunk 1..65536, a known keyframe codec (the writer's arguments, the reader's header).
[[nodiscard]] bool settings_in_range(const replay_settings &s) noexcept;

/// @brief The replay's own header fields: metadata block size, then players, input size, tick
/// rate, keyframe interval, full keyframe every, frames per chunk.
[[nodiscard]] std::vector<std::byte> encode_replay_fields(const replay_settings &s, std::uint32_t metadata_size);

/// @brief Reads the replay's own header fields into @p s (all but its metadata); returns the
/// metadata block size.
std::uint32_t decode_replay_fields(std::span<const std::byte, format_fields_size> fields, replay_settings &s) noexcept;

/// @brief The metadata block: u32 entry count, then per entry a u32-length key and value.
[[nodiscard]] std::vector<std::byte> encode_metadata(const std::vector<std::pair<std::string, std::string>> &entries);

/// @brief Reads a metadata block that starts at file offset @p offset into @p out; it must hold at
/// most max_metadata_entries entries of at most max_metadata_text bytes each and fill the block
/// exactly (`corrupt` otherwise, at the offending byte).
result<void> decode_metadata(std::span<const std::byte> block, std::uint64_t offset, const std::string &name,
                             std::vector<std::pair<std::string, std::string>> &out);

} // namespace retcon::internal

#endif
