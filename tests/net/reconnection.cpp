// Automatic reconnection (docs/net.md, "Reconnecting"): the part's schedule on an injected
// clock, and client sessions on the simulated network that lose their link, are refused,
// kicked or see the match end.
#include <catch2/catch.hpp>

#include <common/sim_match.hpp>

#include "reconnection.hpp"

#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {

reconnect_policy policy(std::uint32_t attempts, std::uint32_t backoff_ms = 200, std::uint32_t max_backoff_ms = 500) {
    return {.attempts = attempts, .backoff_ms = backoff_ms, .max_backoff_ms = max_backoff_ms};
}

/// An event and the virtual time of the poll that raised it.
struct timed_event {
    session_event event;
    std::uint64_t at = 0;
};

/// Runs @p m for @p ms, keeping @p c's new events with their times; @p each runs before every
/// millisecond (to cut new links, ...).
template<class Each>
void run_timed(sim_match &m, sim_client &c, std::uint64_t ms, std::vector<timed_event> &out, Each &&each) {
    for (std::uint64_t i = 0; i < ms; ++i) {
        each();
        const std::size_t before = c.events.size();
        const std::uint64_t at = m.now;
        m.step();
        for (std::size_t k = before; k < c.events.size(); ++k) out.push_back({c.events[k], at});
    }
}

std::vector<timed_event> only(const std::vector<timed_event> &evs, session_event_kind kind) {
    std::vector<timed_event> out;
    for (const auto &e : evs)
        if (e.event.kind == kind) out.push_back(e);
    return out;
}

client_options reconnecting_options(std::uint32_t attempts) {
    client_options o;
    o.reconnect = policy(attempts);
    o.connect_timeout_ms = 1000;
    return o;
}

} // namespace

TEST_CASE("reconnection: the first attempt at once, then the backoff doubling up to its cap", "[net][reconnect]") {
    internal::reconnection r{policy(5, 200, 500)};
    CHECK(r.delay_before(1) == 0);
    CHECK(r.delay_before(2) == 200);
    CHECK(r.delay_before(3) == 400);
    CHECK(r.delay_before(4) == 500);
    CHECK(r.delay_before(40) == 500); // no overflow far along
    CHECK_FALSE(r.active());

    REQUIRE(r.lost(1000, disconnect_cause::timed_out));
    CHECK(r.waiting());
    CHECK(r.due(1000));
    CHECK(r.start() == 1);
    REQUIRE(r.lost(2000, disconnect_cause::connect_failed)); // attempt 1 failed at 2000
    CHECK_FALSE(r.due(2199));
    CHECK(r.due(2200));
    CHECK(r.start() == 2);
    REQUIRE(r.lost(3000, disconnect_cause::closed));
    CHECK_FALSE(r.due(3399));
    CHECK(r.due(3400));
    CHECK(r.start() == 3);
    r.cancel(); // back in the match: a later loss has every attempt again
    CHECK_FALSE(r.active());
    REQUIRE(r.lost(9000, disconnect_cause::timed_out));
    CHECK(r.due(9000));
    CHECK(r.start() == 1);
}

TEST_CASE("reconnection: only a failed link is retried, and only as many times as the policy says",
          "[net][reconnect]") {
    for (const auto cause : {disconnect_cause::rejected, disconnect_cause::match_ended, disconnect_cause::violation,
                             disconnect_cause::left, disconnect_cause::bad_snapshot, disconnect_cause::replaced}) {
        internal::reconnection r{policy(3)};
        INFO(to_string(cause));
        CHECK_FALSE(r.lost(0, cause));
        CHECK_FALSE(r.active());
    }
    internal::reconnection off{reconnect_policy{}}; // the default: never
    CHECK_FALSE(off.lost(0, disconnect_cause::timed_out));

    internal::reconnection two{policy(2)};
    REQUIRE(two.lost(0, disconnect_cause::closed));
    (void)two.start();
    REQUIRE(two.lost(10, disconnect_cause::connect_failed));
    (void)two.start();
    CHECK_FALSE(two.lost(20, disconnect_cause::connect_failed)); // both used
    CHECK(two.made() == 2);
}

TEST_CASE("a client whose link went dead reconnects by itself, takes its slot back and plays on in sync",
          "[net][session][reconnect]") {
    sim_match m{31, 2};
    const link_conditions link{30, 5, 0.0};
    m.add_client(link, link);
    auto &b = m.add_client(link, link, reconnecting_options(3));
    m.run(3000);
    REQUIRE(b.session->state() == client_state::running);
    const int slot = b.session->slot();
    const auto token = b.session->reconnect_token();

    m.net.set_blackout(1, true); // b's link: nothing gets through either way, for good
    std::vector<timed_event> evs;
    run_timed(m, b, 8000, evs, [] {});

    const auto attempts = only(evs, session_event_kind::reconnecting);
    REQUIRE(attempts.size() == 1);
    CHECK(attempts[0].event.count == 1);
    CHECK(attempts[0].event.cause == disconnect_cause::timed_out);
    CHECK(only(evs, session_event_kind::disconnected).empty());
    const auto back = only(evs, session_event_kind::reconnected);
    REQUIRE(back.size() == 1);
    CHECK(back[0].event.count == 1);
    CHECK(back[0].event.cause == disconnect_cause::timed_out);
    CHECK(back[0].at > attempts[0].at);
    CHECK(only(evs, session_event_kind::synchronized).empty()); // a reconnection is not a first join

    REQUIRE(b.session->state() == client_state::running);
    CHECK_FALSE(b.session->reconnecting());
    CHECK(b.session->slot() == slot);
    CHECK(b.session->reconnect_token() == token);
    CHECK(m.net.links() == 3); // the dead link, and the new one the reconnection made
    CHECK(m.server->players() == 2);

    const auto hashes_before = b.hashes.size();
    m.run(3000);
    CHECK(b.hashes.size() > hashes_before + 100);
    CHECK(m.compare(b).mismatched == 0);
}

TEST_CASE("reconnection attempts wait by the backoff on the session's clock, then give up with the cause",
          "[net][session][reconnect]") {
    sim_match m{32, 2};
    const link_conditions link{20, 0, 0.0};
    m.add_client(link, link);
    auto &b = m.add_client(link, link, reconnecting_options(4));
    m.run(3000);
    REQUIRE(b.session->state() == client_state::running);

    // b's link and every link its reconnections make are dead: each attempt connects to nothing.
    m.net.set_blackout(1, true);
    std::vector<timed_event> evs;
    run_timed(m, b, 20000, evs, [&m] {
        for (std::size_t l = 2; l < m.net.links(); ++l) m.net.set_blackout(l, true);
    });

    const auto attempts = only(evs, session_event_kind::reconnecting);
    REQUIRE(attempts.size() == 4);
    const auto interrupted = only(evs, session_event_kind::network_interrupted);
    REQUIRE(interrupted.size() == 1);
    // The loss is noticed after disconnect_ms of silence (interrupt_ms of it had passed at the
    // interruption), and the first attempt starts in that same poll.
    CHECK(attempts[0].at == interrupted[0].at + m.config.disconnect_ms - m.config.interrupt_ms);
    CHECK(attempts[0].event.cause == disconnect_cause::timed_out);
    // Each attempt fails after connect_timeout_ms (1000), then the wait before the next: 200,
    // 400, then the 500 cap.
    const std::uint64_t waits[] = {200, 400, 500};
    for (std::size_t k = 1; k < attempts.size(); ++k) {
        INFO("attempt " << k + 1);
        CHECK(attempts[k].event.count == k + 1);
        CHECK(attempts[k].event.cause == disconnect_cause::connect_failed);
        CHECK(attempts[k].at - attempts[k - 1].at == 1000 + waits[k - 1]);
    }
    const auto gone = only(evs, session_event_kind::disconnected);
    REQUIRE(gone.size() == 1);
    CHECK(gone[0].event.cause == disconnect_cause::connect_failed);
    CHECK(gone[0].event.count == 4);
    CHECK(gone[0].at == attempts[3].at + 1000);
    CHECK(only(evs, session_event_kind::reconnected).empty());
    CHECK(b.session->state() == client_state::disconnected);
    CHECK_FALSE(b.session->reconnecting());
}

TEST_CASE("reconnection is off by default: a dead link ends the session as before", "[net][session][reconnect]") {
    CHECK(client_options{}.reconnect.attempts == 0);
    sim_match m{33, 2};
    const link_conditions link{20, 0, 0.0};
    auto &a = m.add_client(link, link);
    m.run(3000);
    m.net.set_blackout(0, true);
    m.run(7000);
    CHECK(a.session->state() == client_state::disconnected);
    CHECK(sim_match::count(a.events, session_event_kind::reconnecting) == 0);
    CHECK(sim_match::count(a.events, session_event_kind::disconnected, [](const session_event &e) {
              return e.cause == disconnect_cause::timed_out && e.count == 0;
          }) == 1);
    CHECK(m.net.links() == 1);
}

TEST_CASE("no reconnection after a refusal, the match's end, a kick or leaving", "[net][session][reconnect]") {
    const link_conditions link{20, 0, 0.0};
    SECTION("refused") {
        sim_match m{34, 1};
        m.add_client(link, link);
        auto &late = m.add_client(link, link, reconnecting_options(3)); // the only slot is taken
        m.run(3000);
        CHECK(late.session->state() == client_state::rejected);
        CHECK(sim_match::count(late.events, session_event_kind::rejected,
                               [](const session_event &e) { return e.reject == wire::reject_reason::full; }) == 1);
        CHECK(sim_match::count(late.events, session_event_kind::reconnecting) == 0);
        CHECK(m.net.links() == 2);
    }
    SECTION("the match ended") {
        sim_match m{35, 1};
        auto &a = m.add_client(link, link, reconnecting_options(3));
        m.run(3000);
        m.server->end_match();
        m.run(5000);
        CHECK(a.session->state() == client_state::disconnected);
        CHECK(sim_match::count(a.events, session_event_kind::match_ended) == 1);
        CHECK(sim_match::count(a.events, session_event_kind::reconnecting) == 0);
        CHECK(m.net.links() == 1);
    }
    SECTION("kicked for a violation") {
        sim_match m{36, 1};
        auto &a = m.add_client(link, link, reconnecting_options(3));
        m.run(3000);
        REQUIRE(a.session->state() == client_state::running);
        const std::byte garbage[] = {std::byte{1}, std::byte{2}, std::byte{3}}; // a truncated input message
        m.net.inject_from_client(0, wire::channel::inputs, garbage, m.now);
        m.run(3000);
        CHECK(a.session->state() == client_state::disconnected);
        CHECK(sim_match::count(a.events, session_event_kind::disconnected, [](const session_event &e) {
                  return e.cause == disconnect_cause::violation && e.count == 0;
              }) == 1);
        CHECK(sim_match::count(a.events, session_event_kind::reconnecting) == 0);
        CHECK(m.net.links() == 1);
    }
    SECTION("left") {
        sim_match m{37, 1};
        auto &a = m.add_client(link, link, reconnecting_options(3));
        m.run(3000);
        a.session->leave();
        m.run(3000);
        CHECK(a.session->state() == client_state::disconnected);
        CHECK(sim_match::count(a.events, session_event_kind::reconnecting) == 0);
        CHECK(m.net.links() == 1);
    }
}

TEST_CASE("a reconnection the server refuses ends with rejected and the final disconnected",
          "[net][session][reconnect]") {
    // The server forgets the player's token when a new session replaces the old one on the
    // server side: here a fresh server (a restarted process) knows no token at all.
    sim_match m{38, 2};
    const link_conditions link{20, 0, 0.0};
    auto &a = m.add_client(link, link, reconnecting_options(3));
    m.run(3000);
    REQUIRE(a.session->state() == client_state::running);
    m.net.set_blackout(0, true);
    m.run(500);
    m.use_server_options({}); // the server restarts: it knows no token
    m.run(8000);
    CHECK(a.session->state() == client_state::rejected);
    CHECK(sim_match::count(a.events, session_event_kind::reconnecting) == 1);
    CHECK(sim_match::count(a.events, session_event_kind::rejected,
                           [](const session_event &e) { return e.reject == wire::reject_reason::token; }) == 1);
    CHECK(sim_match::count(a.events, session_event_kind::disconnected, [](const session_event &e) {
              return e.cause == disconnect_cause::rejected && e.reject == wire::reject_reason::token && e.count == 1;
          }) == 1);
    CHECK_FALSE(a.session->reconnecting());
}
