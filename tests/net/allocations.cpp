#include <catch2/catch.hpp>

#include <common/counting_allocator.hpp>
#include <common/sim_match.hpp>

using namespace retcon;
using namespace retcon::test;

TEST_CASE("steady-state ticks and rollbacks allocate nothing (in-process transport)", "[net][allocations]") {
    sim_match m{21, 2};
    const link_conditions link{40, 10, 0.05, 0.0, 0.02};
    m.add_client(link, link);
    m.add_client(link, link);
    // The recorder's std::map would allocate: measure without it.
    m.server->on_confirmed(nullptr);
    for (auto &c : m.clients) c->session->on_confirmed_hash(nullptr);
    m.run(10000); // warm up: every buffer reaches its high-water mark
    const auto rollbacks_before = m.clients[0]->session->stats().rollbacks + m.clients[1]->session->stats().rollbacks;
    std::size_t allocations = 0;
    {
        allocation_counter counter;
        m.run(3000);
        allocations = counter.count();
    }
    const auto rollbacks =
        m.clients[0]->session->stats().rollbacks + m.clients[1]->session->stats().rollbacks - rollbacks_before;
    INFO("rollbacks during the measured window: " << rollbacks);
    CHECK(rollbacks > 0);
    CHECK(allocations == 0);
}
