#include <catch2/catch.hpp>

#include <common/sim_match.hpp>
#include <common/sim_match_allocations.hpp>

using namespace retcon;
using namespace retcon::test;

TEST_CASE("steady-state ticks and rollbacks allocate nothing (in-process transport)", "[net][allocations]") {
    sim_match m{21, 2};
    const link_conditions link{40, 10, 0.05, 0.0, 0.02};
    m.add_client(link, link);
    m.add_client(link, link);
    const allocation_window window = measure_warm_allocations(m, [&m] { m.step(); });
    INFO("rollbacks during the measured window: " << window.rollbacks);
    CHECK(window.rollbacks > 0);
    CHECK(window.allocations == 0);
}
