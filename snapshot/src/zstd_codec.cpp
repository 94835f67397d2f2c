#include "zstd_codec.hpp"

#include <zstd.h>

#include <memory>
#include <string>

namespace retcon::internal {

namespace {
struct cctx_deleter {
    void operator()(ZSTD_CCtx *c) const noexcept { ZSTD_freeCCtx(c); }
};
struct dctx_deleter {
    void operator()(ZSTD_DCtx *d) const noexcept { ZSTD_freeDCtx(d); }
};
ZSTD_CCtx *cctx() {
    thread_local std::unique_ptr<ZSTD_CCtx, cctx_deleter> c{ZSTD_createCCtx()};
    return c.get();
}
ZSTD_DCtx *dctx() {
    thread_local std::unique_ptr<ZSTD_DCtx, dctx_deleter> d{ZSTD_createDCtx()};
    return d.get();
}

void compress_impl(std::span<const std::byte> src, std::span<const std::byte> prefix, int level,
                   std::vector<std::byte> &out) {
    ZSTD_CCtx *c = cctx();
    ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0); // retcon checksums the content itself
    if (!prefix.empty()) ZSTD_CCtx_refPrefix(c, prefix.data(), prefix.size());
    out.resize(ZSTD_compressBound(src.size()));
    const std::size_t n = ZSTD_compress2(c, out.data(), out.size(), src.data(), src.size());
    RETCON_ASSERT(!ZSTD_isError(n), "zstd compression into a compressBound buffer failed");
    out.resize(ZSTD_isError(n) ? 0 : n);
}

result<void> decompress_impl(std::span<const std::byte> src, std::span<const std::byte> prefix,
                             std::span<std::byte> dst, const std::string &what) {
    if (auto r = check_content_size(src, dst.size(), what); !r) return r;
    ZSTD_DCtx *d = dctx();
    ZSTD_DCtx_reset(d, ZSTD_reset_session_and_parameters);
    if (!prefix.empty()) ZSTD_DCtx_refPrefix(d, prefix.data(), prefix.size());
    const std::size_t n = ZSTD_decompressDCtx(d, dst.data(), dst.size(), src.data(), src.size());
    if (ZSTD_isError(n)) return {errc::decompress, what + ": zstd: " + ZSTD_getErrorName(n)};
    if (n != dst.size())
        return {errc::decompress, what + ": decompressed to " + std::to_string(n) + " bytes, expected " +
                                      std::to_string(dst.size())};
    return {};
}
} // namespace

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

void compress(std::span<const std::byte> src, int level, std::vector<std::byte> &out) {
    compress_impl(src, {}, level, out);
}
void compress_with_prefix(std::span<const std::byte> src, std::span<const std::byte> prefix, int level,
                          std::vector<std::byte> &out) {
    compress_impl(src, prefix, level, out);
}
result<void> decompress(std::span<const std::byte> src, std::span<std::byte> dst, const std::string &what) {
    return decompress_impl(src, {}, dst, what);
}
result<void> decompress_with_prefix(std::span<const std::byte> src, std::span<const std::byte> prefix,
                                    std::span<std::byte> dst, const std::string &what) {
    return decompress_impl(src, prefix, dst, what);
}

} // namespace retcon::internal
