#include "token_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace retcon::demo {

namespace {

std::string os_error(const std::string &what, const std::string &path) {
    return what + " " + path + ": " + std::strerror(errno);
}

} // namespace

result<reconnect_token> read_token_file(const std::string &path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) return reconnect_token{}; // first run: join as a new player
        return error{errc::io, os_error("cannot read token file", path)};
    }
    if (!S_ISREG(st.st_mode)) return error{errc::io, "token file " + path + " is not a regular file"};
    // A token is 33 bytes; anything much larger is not one (and is not read into memory).
    if (st.st_size > 256)
        return error{errc::corrupt, "token file " + path + " holds " + std::to_string(st.st_size) +
                                        " bytes, not a reconnect token (32 hexadecimal digits)"};
    std::ifstream in(path, std::ios::binary);
    if (!in) return error{errc::io, os_error("cannot read token file", path)};
    std::ostringstream text;
    text << in.rdbuf();
    auto token = reconnect_token::parse(text.str());
    if (!token) return error{errc::corrupt, "token file " + path + ": " + token.message()};
    return token;
}

result<void> write_token_file(const std::string &path, const reconnect_token &token) {
    const std::string temp = path + ".tmp." + std::to_string(::getpid());
    ::unlink(temp.c_str()); // left by an earlier process with this PID that died mid-write
    // O_EXCL: never write through a file (or a link) that appeared in between.
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, S_IRUSR | S_IWUSR);
    if (fd < 0) return error{errc::io, "token file " + path + ": " + os_error("cannot create", temp)};
    const std::string text = token.to_hex() + "\n";
    std::string why; // the first failure, described before anything else changes errno
    if (::fchmod(fd, S_IRUSR | S_IWUSR) != 0)
        why = os_error("cannot set permissions of", temp); // 0600 whatever the umask
    for (std::size_t done = 0; why.empty() && done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) why = os_error("cannot write", temp);
        else
            done += static_cast<std::size_t>(n);
    }
    if (why.empty() && ::fsync(fd) != 0) why = os_error("cannot flush", temp);
    if (::close(fd) != 0 && why.empty()) why = os_error("cannot write", temp);
    if (why.empty() && ::rename(temp.c_str(), path.c_str()) != 0) why = os_error("cannot rename " + temp + " to", path);
    if (why.empty()) return {};
    ::unlink(temp.c_str());
    return error{errc::io, "token file " + path + ": " + why};
}

} // namespace retcon::demo
