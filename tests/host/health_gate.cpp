// The health gate: an orchestrator reports health only while the host's heartbeat moves
// (docs/hosting.md, "Health"). Times are injected.
#include <catch2/catch.hpp>

#include "health_gate.hpp"

using retcon::health_gate;

TEST_CASE("health gate: a moving heartbeat is healthy, a stopped one stops health after the window", "[host][agones]") {
    health_gate gate{1'000'000};
    std::uint64_t beat = 0;
    for (std::uint64_t t = 0; t <= 5'000'000; t += 100'000) REQUIRE(gate.healthy(++beat, t));
    // The ticking thread hangs at 5 s: still healthy for one window, then not.
    CHECK(gate.healthy(beat, 5'500'000));
    CHECK(gate.healthy(beat, 6'000'000));
    CHECK_FALSE(gate.healthy(beat, 6'000'001));
    CHECK_FALSE(gate.healthy(beat, 9'000'000));
    // It moves again: healthy at once.
    CHECK(gate.healthy(beat + 1, 9'100'000));
}

TEST_CASE("health gate: the first sample counts as a move, so a host that never ticks is withheld a window later",
          "[host][agones]") {
    health_gate gate{500'000};
    CHECK(gate.healthy(7, 1'000'000));
    CHECK(gate.healthy(7, 1'500'000));
    CHECK_FALSE(gate.healthy(7, 1'500'001));
}
