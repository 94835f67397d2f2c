#include "zstd_codec.hpp"

#include <zstd.h>

#include <string>

namespace retcon::internal {

void zstd_codec::cctx_deleter::operator()(ZSTD_CCtx_s *c) const noexcept { ZSTD_freeCCtx(c); }
void zstd_codec::dctx_deleter::operator()(ZSTD_DCtx_s *d) const noexcept { ZSTD_freeDCtx(d); }

zstd_codec::zstd_codec() noexcept = default;
zstd_codec::zstd_codec(zstd_codec &&) noexcept = default;
zstd_codec &zstd_codec::operator=(zstd_codec &&) noexcept = default;
zstd_codec::~zstd_codec() = default;

void zstd_codec::compress(std::span<const std::byte> src, int level, std::vector<std::byte> &out) {
    if (!cctx_) cctx_.reset(ZSTD_createCCtx());
    ZSTD_CCtx *c = cctx_.get();
    ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0); // retcon checksums the content itself
    out.resize(ZSTD_compressBound(src.size()));
    const std::size_t n = ZSTD_compress2(c, out.data(), out.size(), src.data(), src.size());
    RETCON_ASSERT(!ZSTD_isError(n), "zstd compression into a compressBound buffer failed");
    out.resize(ZSTD_isError(n) ? 0 : n);
}

result<void> zstd_codec::decompress(std::span<const std::byte> src, std::span<std::byte> dst, const std::string &what) {
    if (auto r = check_content_size(src, dst.size(), what); !r) return r;
    if (!dctx_) dctx_.reset(ZSTD_createDCtx());
    ZSTD_DCtx *d = dctx_.get();
    ZSTD_DCtx_reset(d, ZSTD_reset_session_and_parameters);
    const std::size_t n = ZSTD_decompressDCtx(d, dst.data(), dst.size(), src.data(), src.size());
    if (ZSTD_isError(n)) return {errc::decompress, what + ": zstd: " + ZSTD_getErrorName(n)};
    if (n != dst.size())
        return {errc::decompress,
                what + ": decompressed to " + std::to_string(n) + " bytes, expected " + std::to_string(dst.size())};
    return {};
}

result<void> check_content_size(std::span<const std::byte> src, std::uint64_t expected, const std::string &what) {
    const unsigned long long declared = ZSTD_getFrameContentSize(src.data(), src.size());
    if (declared == ZSTD_CONTENTSIZE_ERROR)
        return {errc::decompress, what + ": not a zstd frame (" + std::to_string(src.size()) + " bytes)"};
    if (declared == ZSTD_CONTENTSIZE_UNKNOWN)
        return {errc::decompress, what + ": zstd frame does not declare its content size"};
    if (declared != expected)
        return {errc::too_large, what + ": zstd frame declares " + std::to_string(declared) + " bytes, expected " +
                                     std::to_string(expected)};
    return {};
}

} // namespace retcon::internal
