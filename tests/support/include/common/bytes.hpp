#ifndef RETCON_TESTS_BYTES_HPP
#define RETCON_TESTS_BYTES_HPP

// Reading and patching fixed-width fields of a file's bytes in place, for tests that forge or
// damage files (offsets from docs/file-format.md; host byte order, which is little-endian).
#include <cstddef>
#include <cstring>
#include <vector>

namespace retcon::test {

/// @brief The T stored at byte @p off of @p b.
template<class T>
T get(const std::vector<std::byte> &b, std::size_t off) {
    T v;
    std::memcpy(&v, b.data() + off, sizeof v);
    return v;
}

/// @brief Overwrites the T at byte @p off of @p b with @p v.
template<class T>
void put(std::vector<std::byte> &b, std::size_t off, T v) {
    std::memcpy(b.data() + off, &v, sizeof v);
}

} // namespace retcon::test

#endif
