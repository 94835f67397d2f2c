#ifndef RETCON_SNAPSHOT_SRC_ZSTD_CODEC_HPP
#define RETCON_SNAPSHOT_SRC_ZSTD_CODEC_HPP

// zstd behind a seam: zstd_codec.cpp is the only place zstd.h is included.
#include <retcon/config.hpp>
#include <retcon/snapshot/error.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace retcon::internal {

/// @brief Compresses @p src at @p level into @p out (replacing its contents). A thread-local
/// compression context is reused between calls.
void compress(std::span<const std::byte> src, int level, std::vector<std::byte> &out);

/// @brief Checks that @p src starts a zstd frame declaring exactly @p expected bytes of content.
/// Readers call it before allocating the output, so a forged size field cannot make them
/// allocate (and zero) up to the size limit for a few bytes of input.
result<void> check_content_size(std::span<const std::byte> src, std::uint64_t expected, const std::string &what);

/// @brief Decompresses one zstd frame into exactly @p dst.size() bytes. The frame must declare
/// that content size up front (so a bomb is refused before any output is written) and must
/// decompress to exactly it. @p what names the input in error messages.
result<void> decompress(std::span<const std::byte> src, std::span<std::byte> dst, const std::string &what);

/// @brief Decompresses with @p prefix as a raw-content dictionary (for deltas against the
/// previous keyframe); same rules as decompress.
result<void> decompress_with_prefix(std::span<const std::byte> src, std::span<const std::byte> prefix,
                                    std::span<std::byte> dst, const std::string &what);
/// @brief Compresses with @p prefix as a raw-content dictionary.
void compress_with_prefix(std::span<const std::byte> src, std::span<const std::byte> prefix, int level,
                          std::vector<std::byte> &out);

} // namespace retcon::internal

#endif
