#include "token_file.hpp"

#include <retcon/snapshot/atomic_file.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

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
    // Whoever reads the token can take the slot: 0600 (docs/snapshot.md, "Writing files").
    auto r = write_file_atomic(path, token.to_hex() + "\n", secret_file_mode);
    if (!r) return error{r.code(), "token file " + r.message()};
    return r;
}

} // namespace retcon::demo
