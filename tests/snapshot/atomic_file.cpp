// The one atomic file writer: whole replacement, the requested permissions whatever the umask,
// nothing changed on failure, and paths that are not regular files refused by name.
#include <retcon/snapshot/atomic_file.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/temp_dir.hpp"

using namespace retcon;
using namespace retcon::test;
using Catch::Matchers::Contains;

namespace {

std::string contents(const std::filesystem::path &p) {
    const auto bytes = read_bytes(p);
    return {reinterpret_cast<const char *>(bytes.data()), bytes.size()};
}

unsigned mode_of(const std::filesystem::path &p) {
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

/// Files this process writes may be no larger than @p bytes, and exceeding that is an EFBIG
/// write error instead of SIGXFSZ, until the guard is destroyed.
class file_size_limit {
public:
    explicit file_size_limit(rlim_t bytes) {
        REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_) == 0);
        old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
        rlimit lower = old_;
        lower.rlim_cur = bytes;
        REQUIRE(::setrlimit(RLIMIT_FSIZE, &lower) == 0);
    }
    file_size_limit(const file_size_limit &) = delete;
    file_size_limit &operator=(const file_size_limit &) = delete;
    ~file_size_limit() {
        ::setrlimit(RLIMIT_FSIZE, &old_);
        std::signal(SIGXFSZ, old_handler_);
    }

private:
    rlimit old_{};
    void (*old_handler_)(int) = nullptr;
};

} // namespace

TEST_CASE("write_file_atomic creates and replaces a file whole, leaving nothing beside it", "[snapshot][atomic_file]") {
    temp_dir dir;
    const auto path = dir / "state.txt";
    REQUIRE(write_file_atomic(path, std::string_view{"first version\n"}));
    CHECK(contents(path) == "first version\n");
    REQUIRE(write_file_atomic(path, std::string_view{"second\n"})); // shorter: nothing of the old one is left
    CHECK(contents(path) == "second\n");
    const std::vector<std::byte> none;
    REQUIRE(write_file_atomic(path, none));
    CHECK(contents(path).empty());
    CHECK(dir.entries() == std::vector<std::string>{"state.txt"});
}

TEST_CASE("write_file_atomic gives the file exactly the requested permissions, whatever the umask",
          "[snapshot][atomic_file]") {
    temp_dir dir;
    const mode_t old_mask = ::umask(077);
    const auto a = write_file_atomic(dir / "public", std::string_view{"p"});
    ::umask(022);
    const auto b = write_file_atomic(dir / "secret", std::string_view{"s"}, secret_file_mode);
    const auto c =
        write_file_atomic(dir / "group", std::string_view{"g"},
                          secret_file_mode | std::filesystem::perms::group_read | std::filesystem::perms::group_write);
    ::umask(old_mask);
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(c);
    CHECK(mode_of(dir / "public") == 0644);
    CHECK(mode_of(dir / "secret") == 0600);
    CHECK(mode_of(dir / "group") == 0660);

    // Replacing a file gives it the new mode, not the old file's.
    REQUIRE(write_file_atomic(dir / "public", std::string_view{"now secret"}, secret_file_mode));
    CHECK(mode_of(dir / "public") == 0600);
}

TEST_CASE("write_file_atomic leaves the old file and no temporary when writing fails", "[snapshot][atomic_file]") {
    temp_dir dir;
    const auto path = dir / "keep.txt";
    REQUIRE(write_file_atomic(path, std::string_view{"old contents\n"}, secret_file_mode));
    const std::string big(4096, 'x');
    result<void> r;
    {
        const file_size_limit limit{1024}; // the write of the temporary fails half way
        r = write_file_atomic(path, big);
    }
    REQUIRE_FALSE(r);
    CHECK(r.code() == errc::io);
    CHECK_THAT(r.message(), Contains(path.string()) && Contains("cannot write"));
    CHECK(contents(path) == "old contents\n");
    CHECK(mode_of(path) == 0600);
    CHECK(dir.entries() == std::vector<std::string>{"keep.txt"});

    // A directory that does not exist: nothing to create the temporary in.
    const auto nowhere = write_file_atomic(dir / "no-such-dir" / "f", big);
    CHECK(nowhere.code() == errc::io);
    CHECK_THAT(nowhere.message(), Contains("no-such-dir/f: cannot create a temporary file beside it"));
    CHECK(dir.entries() == std::vector<std::string>{"keep.txt"});
}

TEST_CASE("write_file_atomic refuses to replace what is not a regular file, and says what it is",
          "[snapshot][atomic_file]") {
    temp_dir dir;
    std::filesystem::create_directory(dir / "a-dir");
    REQUIRE(::mkfifo((dir / "a-fifo").c_str(), 0600) == 0);
    std::filesystem::create_symlink(dir / "target", dir / "a-link");
    { std::ofstream(dir / "target") << "through the link\n"; }
    const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(sock >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const auto sock_path = (dir / "a-socket").string();
    bool have_socket = sock_path.size() < sizeof addr.sun_path;
    if (have_socket) {
        sock_path.copy(addr.sun_path, sock_path.size());
        have_socket = ::bind(sock, reinterpret_cast<const sockaddr *>(&addr), sizeof addr) == 0;
    }
    ::close(sock);
    const auto before = dir.entries();

    struct refused {
        std::filesystem::path path;
        const char *is;
    };
    std::vector<refused> cases{{dir / "a-dir", "is a directory"},
                               {dir / "a-fifo", "is a FIFO"},
                               {dir / "a-link", "is a symbolic link"},
                               {"/dev/null", "is a character device"}};
    if (have_socket) cases.push_back({dir / "a-socket", "is a socket"});
    for (const auto &c : cases) {
        const auto r = write_file_atomic(c.path, std::string_view{"never written\n"});
        INFO(c.path << ": " << r.message());
        REQUIRE_FALSE(r);
        CHECK(r.code() == errc::io);
        CHECK(r.message() == c.path.string() + ": " + c.is + ", not a regular file; refusing to replace it");
    }
    CHECK(dir.entries() == before); // no temporary left, nothing replaced
    CHECK(std::filesystem::is_directory(dir / "a-dir"));
    CHECK(std::filesystem::is_fifo(dir / "a-fifo"));
    CHECK(contents(dir / "target") == "through the link\n");
}

TEST_CASE("write_file_atomic: writers of one path at once never mix their bytes", "[snapshot][atomic_file]") {
    // Each call has a temporary of its own: two writers sharing one would interleave or lose a
    // rename. A reader meanwhile sees one writer's bytes whole.
    temp_dir dir;
    const auto path = dir / "shared";
    const std::string a(3000, 'a');
    const std::string b(5000, 'b');
    REQUIRE(write_file_atomic(path, a));
    std::atomic<int> failures{0};
    std::atomic<bool> stop{false};
    auto writer = [&](const std::string &text) {
        for (int i = 0; i < 200; ++i)
            if (!write_file_atomic(path, text)) ++failures;
    };
    std::thread reader([&] {
        while (!stop) {
            const auto now = contents(path);
            if (now != a && now != b) ++failures;
        }
    });
    std::thread ta(writer, a);
    std::thread tb(writer, b);
    ta.join();
    tb.join();
    stop = true;
    reader.join();
    CHECK(failures == 0);
    const auto last = contents(path);
    CHECK((last == a || last == b));
    CHECK(dir.entries() == std::vector<std::string>{"shared"});
}
