// The ended-matches set and its ledger beside the replays (docs/hosting.md, "Ended matches"):
// what survives a restart, what expires, and a ledger that is not one refused by file and line.
#include <catch2/catch.hpp>

#include <common/temp_dir.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "ended_matches.hpp"

using namespace retcon;
using Catch::Matchers::Contains;

namespace {

void write_text(const std::filesystem::path &path, const std::string &text) {
    std::ofstream out{path, std::ios::binary};
    out << text;
}

std::string read_text(const std::filesystem::path &path) {
    const auto bytes = test::read_bytes(path);
    return {reinterpret_cast<const char *>(bytes.data()), bytes.size()};
}

} // namespace

TEST_CASE("ended matches: an id is remembered until its time, and a later time extends it", "[host][ended]") {
    ended_matches set;
    CHECK(set.note("m1", 100));
    CHECK_FALSE(set.note("m1", 90)); // earlier: not news
    CHECK_FALSE(set.note("m1", 100));
    CHECK(set.note("m2", 200));
    CHECK(set.note("m1", 150)); // later: news for the ledger
    set.forget_expired(150);
    CHECK(set.contains("m1")); // refused through its last second
    set.forget_expired(151);
    CHECK_FALSE(set.contains("m1"));
    CHECK(set.contains("m2"));
    CHECK(set.size() == 1);
    CHECK(set.ledger().empty());
}

TEST_CASE("ended matches: the ledger keeps ids across a load, drops the expired ones and rewrites itself",
          "[host][ended]") {
    test::temp_dir dir;
    const auto ledger = dir / std::string{ended_matches::ledger_name};
    {
        auto set = ended_matches::load(ledger, 1000);
        INFO(set.message());
        REQUIRE(set.ok());
        CHECK(set->size() == 0);
        CHECK(read_text(ledger) == std::string{ended_matches::header} + "\n"); // created
        REQUIRE(ended_matches::append(ledger, "duel-7", 5000).ok());
        REQUIRE(ended_matches::append(ledger, "old", 1500).ok());
        REQUIRE(ended_matches::append(ledger, "duel-7", 6000).ok()); // extended
    }
    auto again = ended_matches::load(ledger, 2000);
    INFO(again.message());
    REQUIRE(again.ok());
    CHECK(again->contains("duel-7"));
    CHECK_FALSE(again->contains("old")); // its tokens can no longer be presented
    CHECK(again->ledger() == ledger);
    CHECK(read_text(ledger) == std::string{ended_matches::header} + "\n6000 duel-7\n");
    // The extension survived: duel-7 is still refused after its first time.
    auto later = ended_matches::load(ledger, 5500);
    REQUIRE(later.ok());
    CHECK(later->contains("duel-7"));
}

TEST_CASE("ended matches: a ledger removed while the host runs is started again by the next append", "[host][ended]") {
    test::temp_dir dir;
    const auto ledger = dir / std::string{ended_matches::ledger_name};
    REQUIRE(ended_matches::load(ledger, 0).ok());
    std::filesystem::remove(ledger);
    REQUIRE(ended_matches::append(ledger, "m", 10).ok());
    auto set = ended_matches::load(ledger, 5);
    REQUIRE(set.ok());
    CHECK(set->contains("m"));
}

TEST_CASE("ended matches: a last line cut short by a crash is dropped, not refused", "[host][ended]") {
    test::temp_dir dir;
    const auto ledger = dir / std::string{ended_matches::ledger_name};
    const std::string head = std::string{ended_matches::header} + "\n";
    struct torn_case {
        std::string text;
        bool kept; // "999 kept" is in it
    };
    for (const auto &c :
         {torn_case{"", false}, torn_case{"retcon ended", false}, torn_case{head + "999 kept\n12", true},
          torn_case{head + "999 kept\n123 ", true}, torn_case{head + "999 kept\n123 duel-", true}}) {
        write_text(ledger, c.text);
        auto set = ended_matches::load(ledger, 10);
        INFO("ledger: '" << c.text << "': " << set.message());
        REQUIRE(set.ok());
        CHECK(set->size() == (c.kept ? 1u : 0u));
        // Rewritten whole: the torn line is gone and the next append starts a line of its own.
        CHECK(read_text(ledger) == head + (c.kept ? "999 kept\n" : ""));
    }
}

TEST_CASE("ended matches: a corrupt ledger is refused with its file and line, and left as it was",
          "[host][ended][hostile]") {
    test::temp_dir dir;
    const auto ledger = dir / std::string{ended_matches::ledger_name};
    const std::string head = std::string{ended_matches::header} + "\n";
    struct bad_case {
        std::string text;
        const char *line;
        const char *what;
    };
    for (const auto &c : {
             bad_case{"retcon ended matches 9\n", "line 1", "first line"},
             bad_case{"garbage\n", "line 1", "first line"},
             bad_case{head + "123 ok\nno-space\n", "line 3", "<unix seconds> <match id>"},
             bad_case{head + "x12 m\n", "line 2", "not a number"},
             bad_case{head + "99999999999999999999999 m\n", "line 2", "not a number"},
             bad_case{head + "12 \n", "line 2", "match id"},
             bad_case{head + "12 a/b\n", "line 2", "match id"},
             bad_case{head + "12 " + std::string(65, 'a') + "\n", "line 2", "match id"},
             bad_case{head + "12 m\n\x01\xff", "line 3", "neither whole"},
         }) {
        write_text(ledger, c.text);
        auto set = ended_matches::load(ledger, 0);
        INFO("ledger: '" << c.text << "'");
        REQUIRE_FALSE(set.ok());
        CHECK(set.code() == errc::corrupt);
        CHECK_THAT(set.message(),
                   Contains(ledger.string()) && Contains(c.line) && Contains(c.what) && Contains("corrupt"));
        CHECK(read_text(ledger) == c.text); // nothing rewritten: the operator sees what was there
    }
}

TEST_CASE("ended matches: a ledger that is not a regular file, or is too large, is refused", "[host][ended][hostile]") {
    test::temp_dir dir;
    const auto ledger = dir / std::string{ended_matches::ledger_name};
    std::filesystem::create_directory(ledger);
    auto as_dir = ended_matches::load(ledger, 0);
    REQUIRE_FALSE(as_dir.ok());
    CHECK_THAT(as_dir.message(), Contains("not a regular file"));
    std::filesystem::remove(ledger);
    std::filesystem::create_symlink(dir / "elsewhere", ledger);
    CHECK_FALSE(ended_matches::load(ledger, 0).ok());
    std::filesystem::remove(ledger);
    write_text(ledger, std::string{ended_matches::header} + "\n");
    std::filesystem::resize_file(ledger, ended_matches::max_ledger_bytes + 1);
    auto big = ended_matches::load(ledger, 0);
    REQUIRE_FALSE(big.ok());
    CHECK(big.code() == errc::too_large);
}
