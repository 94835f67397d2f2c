#include "replay_dir.hpp"

#include <cerrno>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace retcon {

namespace {

result<void> refused(const std::filesystem::path &dir, const std::string &why) {
    return result<void>{errc::io, "the replay directory " + dir.string() + " cannot be used: " + why};
}

std::string system_reason(const std::filesystem::path &path, const char *what) {
    return path.string() + ": " + what + ": " + std::strerror(errno);
}

} // namespace

result<void> prepare_replay_dir(const std::filesystem::path &dir) {
    // Each prefix in turn, as mkdir -p does, so every directory made gets the replay mode (the
    // standard library's create_directories gives 0777).
    std::filesystem::path prefix;
    for (const auto &part : dir) {
        prefix /= part;
        struct stat st {};
        if (::stat(prefix.c_str(), &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                return refused(dir,
                               prefix.string() + " exists and is not a directory (remove it or choose another path)");
            continue;
        }
        if (errno != ENOENT) return refused(dir, system_reason(prefix, "cannot look at it"));
        if (::lstat(prefix.c_str(), &st) == 0) return refused(dir, prefix.string() + " is a link that leads nowhere");
        // Another process may make it between the two calls: that is as good.
        if (::mkdir(prefix.c_str(), replay_dir_mode) != 0 && errno != EEXIST)
            return refused(dir, system_reason(prefix, "cannot create it"));
        if (::stat(prefix.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
            return refused(dir, prefix.string() + " exists and is not a directory");
    }
    // Replays and the ended-matches ledger are created in it: a directory the process cannot
    // write would fail every recording at its first frame, as a missing one did.
    if (::access(dir.c_str(), W_OK | X_OK) != 0) return refused(dir, system_reason(dir, "cannot create files in it"));
    return {};
}

} // namespace retcon
