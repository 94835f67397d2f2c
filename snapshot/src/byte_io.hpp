#ifndef RETCON_SNAPSHOT_SRC_BYTE_IO_HPP
#define RETCON_SNAPSHOT_SRC_BYTE_IO_HPP

// Bounds-checked little-endian reading and writing for file formats.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace retcon::internal {

/// @brief Appends fixed-width little-endian fields to a byte vector.
class byte_writer {
public:
    explicit byte_writer(std::vector<std::byte> &out) noexcept : out_{out} {}
    void u8(std::uint8_t v) { out_.push_back(std::byte{v}); }
    void u16(std::uint16_t v) { le(v, 2); }
    void u32(std::uint32_t v) { le(v, 4); }
    void u64(std::uint64_t v) { le(v, 8); }
    void bytes(std::span<const std::byte> b) { out_.insert(out_.end(), b.begin(), b.end()); }
    void text(std::string_view s) {
        u32(static_cast<std::uint32_t>(s.size()));
        bytes(std::as_bytes(std::span<const char>(s.data(), s.size())));
    }
    [[nodiscard]] std::size_t size() const noexcept { return out_.size(); }
    /// @brief Overwrites a u32 written earlier at @p at.
    void patch_u32(std::size_t at, std::uint32_t v) noexcept {
        for (int i = 0; i < 4; ++i) out_[at + static_cast<std::size_t>(i)] = std::byte(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void patch_u64(std::size_t at, std::uint64_t v) noexcept {
        for (int i = 0; i < 8; ++i) out_[at + static_cast<std::size_t>(i)] = std::byte(static_cast<std::uint8_t>(v >> (8 * i)));
    }

private:
    void le(std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) out_.push_back(std::byte(static_cast<std::uint8_t>(v >> (8 * i))));
    }
    std::vector<std::byte> &out_;
};

/// @brief Reads fixed-width little-endian fields; any read past the end sets a sticky failure
/// and returns zero, so callers check `ok()` once after a group of reads.
class byte_reader {
public:
    byte_reader(std::span<const std::byte> in, std::size_t base_offset = 0) noexcept : in_{in}, base_{base_offset} {}
    std::uint8_t u8() { return static_cast<std::uint8_t>(le(1)); }
    std::uint16_t u16() { return static_cast<std::uint16_t>(le(2)); }
    std::uint32_t u32() { return static_cast<std::uint32_t>(le(4)); }
    std::uint64_t u64() { return le(8); }
    /// @brief The next @p n bytes (empty and failed if fewer remain).
    std::span<const std::byte> bytes(std::size_t n) {
        if (!ok_ || in_.size() - pos_ < n) {
            ok_ = false;
            return {};
        }
        auto s = in_.subspan(pos_, n);
        pos_ += n;
        return s;
    }
    std::string text(std::size_t max_len) {
        const std::size_t n = u32();
        if (n > max_len) {
            ok_ = false;
            return {};
        }
        auto b = bytes(n);
        return std::string(reinterpret_cast<const char *>(b.data()), b.size());
    }
    [[nodiscard]] bool ok() const noexcept { return ok_; }
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
        for (int i = 0; i < n; ++i) v |= std::uint64_t{static_cast<std::uint8_t>(in_[pos_ + static_cast<std::size_t>(i)])} << (8 * i);
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
