// Preparing the replay directory before the host starts (docs/hosting.md, "Replay directory").
#include <catch2/catch.hpp>

#include <common/temp_dir.hpp>

#include "replay_dir.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace retcon;
using retcon::test::temp_dir;

namespace {
mode_t mode_of(const std::filesystem::path &p) {
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return st.st_mode & 07777;
}
} // namespace

TEST_CASE("replay directory: a missing one is made with its parents, mode 0750 less the umask", "[host][replay_dir]") {
    temp_dir dir;
    const auto replays = dir / "a" / "b" / "replays";
    const mode_t mask = ::umask(0);
    ::umask(mask);
    REQUIRE(prepare_replay_dir(replays).ok());
    for (const auto &made : {dir / "a", dir / "a" / "b", replays}) {
        INFO(made.string());
        REQUIRE(std::filesystem::is_directory(made));
        CHECK(mode_of(made) == (replay_dir_mode & ~mask));
    }
    // One that exists is used as it is: its mode and what it holds stay.
    std::ofstream{replays / "open-1.rcr"} << "kept";
    ::chmod(replays.c_str(), 0755);
    REQUIRE(prepare_replay_dir(replays).ok());
    CHECK(mode_of(replays) == 0755);
    CHECK(std::filesystem::exists(replays / "open-1.rcr"));
    // A trailing slash and a link to a directory are directories too.
    CHECK(prepare_replay_dir(replays.string() + "/").ok());
    std::filesystem::create_directory_symlink(replays, dir / "link");
    CHECK(prepare_replay_dir(dir / "link").ok());
}

TEST_CASE("replay directory: a file in its place, or in its path, is refused by name", "[host][replay_dir]") {
    temp_dir dir;
    const auto file = dir / "replays";
    std::ofstream{file} << "not a directory";
    auto r = prepare_replay_dir(file);
    REQUIRE_FALSE(r.ok());
    CHECK(r.code() == errc::io);
    CHECK(r.message() == "the replay directory " + file.string() + " cannot be used: " + file.string() +
                             " exists and is not a directory (remove it or choose another path)");
    r = prepare_replay_dir(file / "x" / "y");
    REQUIRE_FALSE(r.ok());
    CHECK(r.message() == "the replay directory " + (file / "x" / "y").string() + " cannot be used: " + file.string() +
                             " exists and is not a directory (remove it or choose another path)");
    CHECK(std::filesystem::is_regular_file(file));
    CHECK_FALSE(std::filesystem::exists(dir / "x"));
    // A link that leads nowhere is not followed into making a directory somewhere else.
    std::filesystem::create_symlink(dir / "nowhere", dir / "dangling");
    r = prepare_replay_dir(dir / "dangling");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.message(), Catch::Matchers::EndsWith((dir / "dangling").string() + " is a link that leads nowhere"));
    CHECK_FALSE(std::filesystem::exists(dir / "nowhere"));
    // Where the system refuses, its reason is given: a name too long for the file system.
    r = prepare_replay_dir(dir / std::string(300, 'r'));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.message(), Catch::Matchers::EndsWith(": File name too long"));
}

TEST_CASE("replay directory: one this process cannot write in is refused with the system's reason",
          "[host][replay_dir]") {
    if (::geteuid() == 0) {
        WARN("skipped: root writes in any directory");
        return;
    }
    temp_dir dir;
    const auto locked = dir / "locked";
    std::filesystem::create_directory(locked);
    ::chmod(locked.c_str(), 0500);
    const auto r = prepare_replay_dir(locked);
    ::chmod(locked.c_str(), 0700);
    REQUIRE_FALSE(r.ok());
    CHECK(r.message() == "the replay directory " + locked.string() + " cannot be used: " + locked.string() +
                             ": cannot create files in it: Permission denied");
}
