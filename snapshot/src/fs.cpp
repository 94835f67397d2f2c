#include "fs.hpp"

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace retcon::internal {

namespace {
error os_error(const std::filesystem::path &path, const char *what) {
    return error{errc::io, path.string() + ": " + what + ": " + std::strerror(errno)};
}

bool write_all(int fd, std::span<const std::byte> bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}
} // namespace

const char *not_regular(unsigned mode) noexcept {
    if (S_ISREG(mode)) return nullptr;
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "not a regular file";
}

result<regular_file> open_regular_file(const std::filesystem::path &path) {
    // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer, forever if none comes.
    // It changes nothing for a regular file, the only kind read past the check below.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return os_error(path, "cannot open");
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const auto e = os_error(path, "cannot stat");
        ::close(fd);
        return e;
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return error{errc::io, path.string() + ": " + not_regular(st.st_mode) + ", not a regular file"};
    }
    return regular_file{fd, static_cast<std::uint64_t>(st.st_size)};
}

result<std::vector<std::byte>> read_file(const std::filesystem::path &path, std::uint64_t max_bytes) {
    auto opened = open_regular_file(path);
    if (!opened) return opened.err();
    const auto [fd, size] = *opened;
    if (size > max_bytes) {
        ::close(fd);
        return error{errc::too_large, path.string() + ": " + std::to_string(size) + " bytes exceeds the limit of " +
                                          std::to_string(max_bytes)};
    }
    std::vector<std::byte> bytes(static_cast<std::size_t>(size));
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const auto e = n < 0 ? os_error(path, "read failed")
                                 : error{errc::truncated, path.string() + ": file shrank while reading"};
            ::close(fd);
            return e;
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return bytes;
}

append_file::append_file(append_file &&o) noexcept
    : fd_{std::exchange(o.fd_, -1)}, size_{o.size_}, path_{std::move(o.path_)} {}

append_file &append_file::operator=(append_file &&o) noexcept {
    if (this != &o) {
        (void)close();
        fd_ = std::exchange(o.fd_, -1);
        size_ = o.size_;
        path_ = std::move(o.path_);
    }
    return *this;
}

append_file::~append_file() { (void)close(); }

result<void> append_file::open(const std::filesystem::path &path) {
    (void)close();
    // O_EXCL: an existing file (or a link, dangling or not) is refused, never truncated or
    // followed. A replay is never overwritten (docs/snapshot.md, "Writing files").
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0 && errno == EEXIST)
        return error{errc::io, path.string() + ": already exists; a replay is never overwritten (move it away or "
                                               "choose another path)"};
    if (fd_ < 0) return os_error(path, "cannot create");
    path_ = path;
    size_ = 0;
    return {};
}

result<void> append_file::append(std::span<const std::byte> bytes) {
    if (fd_ < 0) return {errc::invalid_argument, "append to a file that is not open"};
    if (!write_all(fd_, bytes)) return os_error(path_, "write failed");
    size_ += bytes.size();
    return {};
}

result<void> append_file::sync() {
    if (fd_ >= 0 && ::fsync(fd_) != 0) return os_error(path_, "fsync failed");
    return {};
}

result<void> append_file::close() {
    if (fd_ < 0) return {};
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) return os_error(path_, "close failed");
    return {};
}

} // namespace retcon::internal
