#ifndef RETCON_SNAPSHOT_SRC_ZSTD_CODEC_HPP
#define RETCON_SNAPSHOT_SRC_ZSTD_CODEC_HPP

// zstd behind a seam: zstd_codec.cpp is the only place zstd.h is included. Internal: never
// installed.
#include <retcon/config.hpp>
#include <retcon/snapshot/error.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace retcon::internal {

/**
 * @brief A zstd compression context and a decompression context, each created on first use and
 * reused by every later call (zstd's advice: a context keeps its tables and window between
 * frames). Owned by whoever compresses or decompresses repeatedly: a replay writer, a replay
 * reader. Not thread-safe; one owner, one thread at a time.
 */
class zstd_codec {
public:
    zstd_codec() noexcept;
    zstd_codec(zstd_codec &&) noexcept;
    zstd_codec &operator=(zstd_codec &&) noexcept;
    zstd_codec(const zstd_codec &) = delete;
    zstd_codec &operator=(const zstd_codec &) = delete;
    ~zstd_codec();

    /// @brief Compresses @p src at @p level into @p out (replacing its contents) as one frame that
    /// declares its content size and carries no zstd checksum (docs/file-format.md).
    void compress(std::span<const std::byte> src, int level, std::vector<std::byte> &out);

    /// @brief Decompresses one zstd frame into exactly @p dst.size() bytes. The frame must declare
    /// that content size up front (so a bomb is refused before any output is written) and must
    /// decompress to exactly it. @p what names the input in error messages.
    result<void> decompress(std::span<const std::byte> src, std::span<std::byte> dst, const std::string &what);

private:
    struct cctx_deleter {
        void operator()(ZSTD_CCtx_s *c) const noexcept;
    };
    struct dctx_deleter {
        void operator()(ZSTD_DCtx_s *d) const noexcept;
    };
    std::unique_ptr<ZSTD_CCtx_s, cctx_deleter> cctx_;
    std::unique_ptr<ZSTD_DCtx_s, dctx_deleter> dctx_;
};

/// @brief Checks that @p src starts a zstd frame declaring exactly @p expected bytes of content.
/// Readers call it before allocating the output, so a forged size field cannot make them
/// allocate (and zero) up to the size limit for a few bytes of input.
result<void> check_content_size(std::span<const std::byte> src, std::uint64_t expected, const std::string &what);

} // namespace retcon::internal

#endif
