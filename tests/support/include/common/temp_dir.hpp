#ifndef RETCON_TESTS_TEMP_DIR_HPP
#define RETCON_TESTS_TEMP_DIR_HPP

// A scratch directory for tests that touch the file system, removed when it goes out of scope.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

namespace retcon::test {

/// @brief A fresh, empty directory under the system temporary directory (unique per process
/// and per instance); it and everything in it are deleted by the destructor.
class temp_dir {
public:
    temp_dir() {
        static std::atomic<unsigned> counter{0};
        const auto base = std::filesystem::temp_directory_path();
        for (;;) {
            path_ = base / ("retcon-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
            std::error_code ec;
            if (std::filesystem::create_directory(path_, ec)) break; // false: exists already, try the next
            if (ec) throw std::filesystem::filesystem_error("temp_dir: cannot create", path_, ec);
        }
    }
    temp_dir(const temp_dir &) = delete;
    temp_dir &operator=(const temp_dir &) = delete;
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }

    /// @brief The directory.
    [[nodiscard]] const std::filesystem::path &path() const noexcept { return path_; }
    /// @brief A path inside the directory.
    [[nodiscard]] std::filesystem::path operator/(const std::string &name) const { return path_ / name; }
    /// @brief Names of the entries in the directory, sorted.
    [[nodiscard]] std::vector<std::string> entries() const {
        std::vector<std::string> out;
        for (const auto &e : std::filesystem::directory_iterator(path_)) out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }

private:
    std::filesystem::path path_;
};

/// @brief The whole content of a file (empty if it cannot be read).
inline std::vector<std::byte> read_bytes(const std::filesystem::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> out(chars.size());
    for (std::size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
    return out;
}

/// @brief Writes @p bytes to @p p (replacing it); true on success.
inline bool write_bytes(const std::filesystem::path &p, const std::vector<std::byte> &bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
}

} // namespace retcon::test

#endif
