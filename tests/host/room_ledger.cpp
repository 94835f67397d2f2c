// The room ledger: one room given back per allocation seen, never more (docs/hosting.md,
// "High density"). Times are injected.
#include <catch2/catch.hpp>

#include "room_ledger.hpp"

using retcon::room_ledger;

namespace {
constexpr std::uint64_t s = 1'000'000; // µs
}

TEST_CASE("room ledger: an allocation then its match gives its room back when the match ends", "[host][agones]") {
    room_ledger l{60 * s};
    CHECK(l.allocated(1 * s) == 0);
    CHECK(l.opened("m1", 2 * s) == 0);
    CHECK(l.expire(100 * s) == 0); // used by a running match: never expires
    CHECK(l.outstanding() == 1);
    CHECK(l.ended("m1") == 1);
    CHECK(l.outstanding() == 0);
    CHECK(l.ended("m1") == 0); // an end reported twice gives nothing more
}

TEST_CASE("room ledger: a match seen before its allocation pairs with it", "[host][agones]") {
    room_ledger l{60 * s};
    l.opened("m1", 1 * s);
    CHECK(l.allocated(2 * s) == 0);
    CHECK(l.ended("m1") == 1);

    // Opened, ended, and only then its allocation shows on the watch: given back at once.
    l.opened("m2", 10 * s);
    CHECK(l.ended("m2") == 0);
    CHECK(l.allocated(11 * s) == 1);
    CHECK(l.outstanding() == 0);
}

TEST_CASE("room ledger: an allocation no match uses is given back after the timeout", "[host][agones]") {
    room_ledger l{60 * s};
    l.allocated(1 * s);
    l.allocated(2 * s);
    CHECK(l.expire(61 * s) == 0);
    CHECK(l.expire(61 * s + 1) == 1);
    CHECK(l.expire(62 * s + 1) == 1);
    CHECK(l.outstanding() == 0);
}

TEST_CASE("room ledger: a match with no allocation gives nothing back, so the count never goes below zero",
          "[host][agones]") {
    room_ledger l{10 * s};
    l.opened("lonely", 1 * s);
    CHECK(l.expire(20 * s) == 0);
    CHECK(l.allocated(21 * s) == 0); // too late to be its allocation: it waits for a match of its own
    CHECK(l.ended("lonely") == 0);
    CHECK(l.outstanding() == 1);
    CHECK(l.expire(32 * s) == 1);
    // Over any sequence, rooms given back never exceed allocations seen.
    room_ledger m{5 * s};
    std::uint64_t allocations = 0, given = 0;
    for (int i = 0; i < 200; ++i) {
        const std::uint64_t t = static_cast<std::uint64_t>(i) * s / 3;
        if (i % 3 == 0) {
            ++allocations;
            given += static_cast<std::uint64_t>(m.allocated(t));
        }
        if (i % 4 == 0) given += static_cast<std::uint64_t>(m.opened("x" + std::to_string(i), t));
        if (i % 5 == 0) given += static_cast<std::uint64_t>(m.ended("x" + std::to_string(i - 8)));
        given += static_cast<std::uint64_t>(m.expire(t));
        REQUIRE(given <= allocations);
        REQUIRE(m.outstanding() == allocations - given);
    }
}
