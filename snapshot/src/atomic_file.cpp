// The one atomic file writer (docs/snapshot.md, "Writing files").
#include <retcon/snapshot/atomic_file.hpp>

#include "fs.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace retcon {

namespace {

error os_error(const std::filesystem::path &path, const std::string &what) {
    return error{errc::io, path.string() + ": " + what + ": " + std::strerror(errno)};
}

bool write_all(int fd, std::span<const std::byte> bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

} // namespace

result<void> write_file_atomic(const std::filesystem::path &path, std::span<const std::byte> bytes,
                               std::filesystem::perms mode) {
    // lstat, not stat: a link is replaced by rename, not followed, which would surprise whoever
    // made it. Checked first so nothing is written beside a path that will be refused anyway.
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) {
        if (const char *what = internal::not_regular(st.st_mode))
            return error{errc::io,
                         path.string() + ": is " + std::string{what} + ", not a regular file; refusing to replace it"};
    } else if (errno != ENOENT) {
        return os_error(path, "cannot inspect");
    }

    // mkostemp creates the file exclusively with permissions 0600, and picks a name no other
    // writer (thread or process) of the same path uses.
    std::string temp = path.string() + ".tmp.XXXXXX";
    const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
    if (fd < 0) return os_error(path, "cannot create a temporary file beside it");
    std::string why; // the first failure, described before anything else changes errno
    auto note = [&](const char *what) {
        if (why.empty()) why = path.string() + ": " + what + " " + temp + ": " + std::strerror(errno);
    };
    if (::fchmod(fd, static_cast<mode_t>(mode) & 07777) != 0) note("cannot set the permissions of");
    if (why.empty() && !write_all(fd, bytes)) note("cannot write");
    if (why.empty() && ::fsync(fd) != 0) note("cannot flush");
    if (::close(fd) != 0) note("cannot write");
    if (why.empty() && ::rename(temp.c_str(), path.c_str()) != 0)
        why = path.string() + ": cannot rename " + temp + " over it: " + std::strerror(errno);
    if (!why.empty()) {
        ::unlink(temp.c_str());
        return error{errc::io, why};
    }
    // The rename is durable once the directory is flushed. A failure here is not reported: the
    // new file is already in place, and "failed" must mean "the old file is still there".
    const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
        (void)::fsync(dfd);
        ::close(dfd);
    }
    return {};
}

} // namespace retcon
