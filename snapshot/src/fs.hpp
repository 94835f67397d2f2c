#ifndef RETCON_SNAPSHOT_SRC_FS_HPP
#define RETCON_SNAPSHOT_SRC_FS_HPP

#include <retcon/snapshot/error.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace retcon::internal {

/// @brief What a file of type @p mode (stat's st_mode) is, for messages ("a FIFO", "a directory");
/// nullptr for a regular file.
[[nodiscard]] const char *not_regular(unsigned mode) noexcept;

/// @brief A regular file open for reading: its descriptor (the caller closes it) and its size
/// when opened.
struct regular_file {
    int fd = -1;
    std::uint64_t size = 0;
};

/// @brief Opens @p path for reading if it is a regular file, without blocking on a FIFO.
/// Errors: cannot open, or "<path>: a FIFO, not a regular file".
result<regular_file> open_regular_file(const std::filesystem::path &path);

/// @brief Reads a whole file, refusing files larger than @p max_bytes before reading them.
result<std::vector<std::byte>> read_file(const std::filesystem::path &path, std::uint64_t max_bytes);

/// @brief An append-only file for streaming formats (replays); each `append` is written fully
/// before it returns, `sync` makes it durable.
class append_file {
public:
    append_file() = default;
    append_file(append_file &&o) noexcept;
    append_file &operator=(append_file &&o) noexcept;
    append_file(const append_file &) = delete;
    append_file &operator=(const append_file &) = delete;
    ~append_file();

    /// @brief Creates @p path, which must not exist: an existing file or link is an `io` error
    /// saying so, and is left untouched.
    result<void> open(const std::filesystem::path &path);
    result<void> append(std::span<const std::byte> bytes);
    result<void> sync();
    result<void> close();
    [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
    [[nodiscard]] std::uint64_t size() const noexcept { return size_; }

private:
    int fd_ = -1;
    std::uint64_t size_ = 0;
    std::filesystem::path path_;
};

} // namespace retcon::internal

#endif
