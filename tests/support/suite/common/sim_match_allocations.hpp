#ifndef RETCON_TESTS_SIM_MATCH_ALLOCATIONS_HPP
#define RETCON_TESTS_SIM_MATCH_ALLOCATIONS_HPP

// The heap traffic of a warm match: a sim_match (common/sim_match.hpp) run until every buffer is
// at its high-water mark, then measured over a window of virtual time with the counting allocator
// (docs/testing.md, "Test support"). It sits with the counting allocator, not next to
// sim_match.hpp, because the counting allocator is the Catch2 suites' alone and the benchmarks
// include sim_match.hpp too.
#include "counting_allocator.hpp"

#include <common/sim_match.hpp>

#include <cstddef>
#include <cstdint>

namespace retcon::test {

/// @brief What a measured window of a warm sim_match did.
struct allocation_window {
    std::size_t allocations = 0; ///< calls to the global operator new during the window
    std::uint64_t rollbacks = 0; ///< rollbacks of all the clients during the window (some must happen)
};

/// @brief The rollbacks of all of @p m's clients so far.
inline std::uint64_t client_rollbacks(const sim_match &m) {
    std::uint64_t n = 0;
    for (const auto &c : m.clients) n += c->session->stats().rollbacks;
    return n;
}

/**
 * @brief Runs @p m for 10 s of virtual time so that every buffer reaches its high-water mark, then
 * counts the allocations and the clients' rollbacks over the next 3 s. @p step_ms() advances @p m
 * by one millisecond (m.step(), or m.step with tick functions for poll mode). The recorders of
 * confirmed-frame hashes are removed first: their std::maps would allocate.
 */
template<class StepMs>
allocation_window measure_warm_allocations(sim_match &m, StepMs &&step_ms) {
    constexpr int warm_ms = 10000;
    constexpr int window_ms = 3000;
    m.server->on_confirmed(nullptr);
    for (auto &c : m.clients) c->session->on_confirmed_hash(nullptr);
    for (int ms = 0; ms < warm_ms; ++ms) step_ms();
    const std::uint64_t rollbacks_before = client_rollbacks(m);
    allocation_window window;
    {
        allocation_counter counter;
        for (int ms = 0; ms < window_ms; ++ms) step_ms();
        window.allocations = counter.count();
    }
    window.rollbacks = client_rollbacks(m) - rollbacks_before;
    return window;
}

} // namespace retcon::test

#endif
