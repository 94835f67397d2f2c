#ifndef RETCON_TESTS_FUZZ_FUZZ_READER_HPP
#define RETCON_TESTS_FUZZ_FUZZ_READER_HPP

// How the C API fuzzers read their input: front to back, little-endian, zeros past the end, so
// every input (a truncated one included) decodes to some call sequence.
#include <cstddef>
#include <cstdint>

namespace retcon::fuzz {

/// @brief Reads the input front to back; past the end everything is zero.
class reader {
public:
    reader(const std::uint8_t *data, std::size_t size) : data_{data}, size_{size} {}
    [[nodiscard]] bool done() const { return pos_ >= size_; }
    std::uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
    std::uint32_t u32() {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(u8()) << (8 * i);
        return v;
    }
    std::uint64_t u64() { return u32() | (std::uint64_t{u32()} << 32); }
    /// @brief Up to @p n bytes of the input (fewer at its end).
    const std::uint8_t *take(std::size_t n, std::size_t &got) {
        got = n < size_ - pos_ ? n : size_ - pos_;
        const std::uint8_t *p = data_ + pos_;
        pos_ += got;
        return p;
    }

private:
    const std::uint8_t *data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

} // namespace retcon::fuzz

#endif
