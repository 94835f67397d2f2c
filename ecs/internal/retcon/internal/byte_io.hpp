#ifndef RETCON_INTERNAL_BYTE_IO_HPP
#define RETCON_INTERNAL_BYTE_IO_HPP

// Bounds-checked little-endian reading and writing, shared by every encoder and decoder in
// retcon (schema blocks, snapshot and replay files, wire messages, join tokens). Not part of the
// API and never installed: modules reach it through retcon_internal_headers (ecs/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace retcon::internal {

/// @brief @p v with its bytes reversed: a magic number read this way says the writer was
/// big-endian (docs/file-format.md: magic numbers are the byte-order mark).
constexpr std::uint32_t byte_swapped(std::uint32_t v) noexcept {
    return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

/// @brief Appends fixed-width little-endian fields to a byte vector.
class byte_writer {
public:
    explicit byte_writer(std::vector<std::byte> &out) noexcept : out_{out} {}
    void u8(std::uint8_t v) { out_.push_back(std::byte{v}); }
    void u16(std::uint16_t v) { le(v, 2); }
    void u32(std::uint32_t v) { le(v, 4); }
    void u64(std::uint64_t v) { le(v, 8); }
    void bytes(std::span<const std::byte> b) { out_.insert(out_.end(), b.begin(), b.end()); }
    /// @brief Text with a u8 / u16 / u32 length prefix, cut to @p max bytes.
    void text8(std::string_view s, std::size_t max = 0xff) { text(s, max < 0xff ? max : 0xff, 1); }
    void text16(std::string_view s, std::size_t max = 0xffff) { text(s, max < 0xffff ? max : 0xffff, 2); }
    void text32(std::string_view s) { text(s, s.size(), 4); }
    [[nodiscard]] std::size_t size() const noexcept { return out_.size(); }
    /// @brief Overwrites a u32 / u64 written earlier at byte @p at.
    void patch_u32(std::size_t at, std::uint32_t v) noexcept { patch(at, v, 4); }
    void patch_u64(std::size_t at, std::uint64_t v) noexcept { patch(at, v, 8); }

private:
    void le(std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) out_.push_back(std::byte(static_cast<std::uint8_t>(v >> (8 * i))));
    }
    void patch(std::size_t at, std::uint64_t v, int n) noexcept {
        for (int i = 0; i < n; ++i)
            out_[at + static_cast<std::size_t>(i)] = std::byte(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void text(std::string_view s, std::size_t max, int prefix) {
        const std::size_t n = s.size() < max ? s.size() : max;
        le(n, prefix);
        for (std::size_t i = 0; i < n; ++i) out_.push_back(static_cast<std::byte>(s[i]));
    }
    std::vector<std::byte> &out_;
};

/// @brief Reads fixed-width little-endian fields. Any read past the end sets a sticky failure
/// and returns zero (or empty), so a decoder checks `ok()` once after a group of reads.
class byte_reader {
public:
    /// @brief Reads @p in; @p base_offset is added to offset() for error messages.
    explicit byte_reader(std::span<const std::byte> in, std::size_t base_offset = 0) noexcept
        : in_{in}, base_{base_offset} {}
    std::uint8_t u8() { return static_cast<std::uint8_t>(le(1)); }
    std::uint16_t u16() { return static_cast<std::uint16_t>(le(2)); }
    std::uint32_t u32() { return static_cast<std::uint32_t>(le(4)); }
    std::uint64_t u64() { return le(8); }
    /// @brief The next @p n bytes (empty, and failed, if fewer remain).
    std::span<const std::byte> bytes(std::size_t n) {
        if (!ok_ || in_.size() - pos_ < n) {
            ok_ = false;
            return {};
        }
        const auto s = in_.subspan(pos_, n);
        pos_ += n;
        return s;
    }
    /// @brief The next @p n bytes as text; fails if @p n exceeds @p max.
    std::string text(std::size_t n, std::size_t max) {
        if (n > max) ok_ = false;
        const auto b = bytes(ok_ ? n : 0);
        return ok_ ? std::string(reinterpret_cast<const char *>(b.data()), b.size()) : std::string();
    }
    /// @brief Marks the input as malformed (sticky).
    void fail() noexcept { ok_ = false; }
    [[nodiscard]] bool ok() const noexcept { return ok_; }
    /// @brief True if every byte was read and nothing failed.
    [[nodiscard]] bool done() const noexcept { return ok_ && pos_ == in_.size(); }
    /// @brief Absolute offset of the next byte (for error messages).
    [[nodiscard]] std::size_t offset() const noexcept { return base_ + pos_; }
    [[nodiscard]] std::size_t remaining() const noexcept { return in_.size() - pos_; }

private:
    std::uint64_t le(int n) {
        if (!ok_ || in_.size() - pos_ < static_cast<std::size_t>(n)) {
            ok_ = false;
            return 0;
        }
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i)
            v |= std::uint64_t{static_cast<std::uint8_t>(in_[pos_ + static_cast<std::size_t>(i)])} << (8 * i);
        pos_ += static_cast<std::size_t>(n);
        return v;
    }
    std::span<const std::byte> in_;
    std::size_t base_;
    std::size_t pos_ = 0;
    bool ok_ = true;
};

} // namespace retcon::internal

#endif
