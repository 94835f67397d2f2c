// The scheduler: phases, each match's one clock, lateness (docs/hosting.md, "Scheduling" and
// "Inside the host"). Times are injected.
#include <catch2/catch.hpp>

#include <retcon/net/server_session.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "host/host_fixture.hpp"
#include "scheduler.hpp"

using namespace retcon;

namespace {

/// A transport nothing arrives on: the session's clock is all the test looks at.
class silent_transport final : public transport {
public:
    void send(peer_id, wire::channel, std::span<const std::byte>) override {}
    void disconnect(peer_id) override {}
    void poll(std::uint64_t, transport_handler &) override {}
};

constexpr std::uint64_t ms = 1000; // µs

} // namespace

TEST_CASE("scheduler: matches opened together take different phases of the tick period", "[host][scheduler]") {
    frame_scheduler s{0};
    std::vector<std::uint64_t> firsts;
    std::set<std::size_t> phases;
    for (int i = 0; i < 8; ++i) {
        const auto c = s.assign(5 * ms, 60, 0);
        CHECK(c.deadline_us(0) >= 5 * ms);          // never before the match opened
        CHECK(c.deadline_us(0) < 5 * ms + 17 * ms); // within one period
        CHECK(c.offset_us < 1000);
        firsts.push_back(c.deadline_us(0));
        phases.insert(c.phase);
    }
    CHECK(phases.size() == 8);
    // Spread over the period, not packed at its start: more than a millisecond apart.
    std::sort(firsts.begin(), firsts.end());
    for (std::size_t i = 1; i < firsts.size(); ++i) CHECK(firsts[i] - firsts[i - 1] > 1 * ms);
    std::uint32_t total = 0;
    for (std::size_t p = 0; p < frame_scheduler::max_phases; ++p) total += s.load(p);
    CHECK(total == 8);
}

TEST_CASE("scheduler: 160 matches at 60 Hz never share a 100 µs phase slot, 320 at most two", "[host][scheduler]") {
    // Whole-millisecond phases put about ten of 160 matches on one instant; slots of 100 µs do not.
    CHECK(frame_scheduler::phases(60) == 166);
    frame_scheduler s{1'234};
    std::vector<std::uint64_t> at; // each match's first deadline within the period, µs
    std::uint64_t now = 2'000'000;
    const auto period = 1e6 / 60;
    for (int i = 0; i < 320; ++i) {
        now += 12'500 + 37u * static_cast<std::uint64_t>(i); // opened one after another, at any instant
        const auto c = s.assign(now, 60, 0);
        REQUIRE(c.deadline_us(0) >= now);
        REQUIRE(c.deadline_us(0) / 1000 == c.origin_ms); // the session's clock: the same millisecond
        at.push_back(static_cast<std::uint64_t>(std::fmod(static_cast<double>(c.deadline_us(0) - 1'234), period)));
        if (i + 1 == 160 || i + 1 == 320) {
            std::vector<std::uint64_t> sorted = at;
            std::sort(sorted.begin(), sorted.end());
            std::size_t most = 0; // matches due within any 90 µs
            for (std::size_t a = 0; a < sorted.size(); ++a) {
                std::size_t b = a;
                while (b < sorted.size() && sorted[b] < sorted[a] + 90) ++b;
                most = std::max(most, b - a);
            }
            INFO(i + 1 << " matches");
            CHECK(most == (i + 1 == 160 ? 1u : 2u));
        }
    }
}

TEST_CASE("scheduler: a released phase is the next one taken", "[host][scheduler]") {
    frame_scheduler s{0};
    std::vector<match_clock> clocks;
    const std::size_t n = frame_scheduler::phases(60);
    for (std::size_t i = 0; i < n; ++i) clocks.push_back(s.assign(0, 60, 0));
    for (std::size_t p = 0; p < n; ++p) CHECK(s.load(p) == 1);
    s.release(clocks[5]);
    CHECK(s.load(clocks[5].phase) == 0);
    CHECK(s.assign(0, 60, 0).phase == clocks[5].phase);
    s.release(clocks[3]);
    s.release(clocks[3]); // a phase never goes below zero
    CHECK(s.load(clocks[3].phase) == 0);
}

TEST_CASE("scheduler: deadlines follow the frames from the origin without drift", "[host][scheduler]") {
    match_clock c;
    c.origin_ms = 1000;
    c.first_frame = 40;
    c.period_us = 1e6 / 60;
    CHECK(c.deadline_us(40) == 1'000'000);
    CHECK(c.deadline_us(41) == 1'016'667);
    CHECK(c.deadline_us(40 + 600) == 11'000'000); // ten seconds later, to the microsecond
    CHECK_FALSE(frame_scheduler::due(c, 41, 1'016'666));
    CHECK(frame_scheduler::due(c, 41, 1'016'667));
}

TEST_CASE("scheduler: the session is first polled at the origin, then at the loop's time", "[host][scheduler]") {
    match_clock c;
    c.origin_ms = 500;
    CHECK_FALSE(c.running(499'999));
    CHECK(c.running(500'000));
    CHECK(c.session_time_ms(503'700) == 500); // a late first poll still starts the clock at the origin
    CHECK(c.session_time_ms(503'700) == 503);
}

TEST_CASE("scheduler: lateness is measured from the deadline and late ticks are counted", "[host][scheduler]") {
    match_clock c;
    c.origin_ms = 10;
    c.period_us = 1e6 / 50;
    match_metrics m;
    lateness_histogram all;
    CHECK(frame_scheduler::record_tick(c, 0, 9'000, m, all) == 0); // early: not late
    CHECK(frame_scheduler::record_tick(c, 1, 30'000 + 1'999, m, all) == 1'999);
    CHECK(frame_scheduler::record_tick(c, 2, 50'000 + 2'000, m, all) == 2'000);
    CHECK(m.ticks == 3);
    CHECK(m.late_ticks == 1);
    CHECK(m.max_lateness_us == 2'000);
    CHECK(all.count() == 3);
}

TEST_CASE("scheduler: a match has one clock: its session's deadlines are the scheduler's", "[host][scheduler]") {
    auto game = test::counter_game(test::params_of(2, 1));
    REQUIRE(game.ok());
    game->config.max_players = 2;
    game->config.tick_hz = 60;
    silent_transport t;
    server_session session{game->config, *game->state, game->step, t};
    frame_scheduler s{123};
    // Opened at an instant off the millisecond, as the host's matches are.
    auto c = s.assign(7'654'321, 60, session.frame());
    for (int i = 0; i < 4; ++i) c = s.assign(7'654'321, 60, session.frame()); // a later phase
    session.poll(c.session_time_ms(c.origin_ms * 1000 + 3 * ms));
    // The session ticks from its own clock; it must agree with the scheduler's at every frame
    // (the session counts whole milliseconds: a deadline is due in its millisecond or the next).
    for (int f = 0; f < 240; ++f) {
        const frame_t frame = session.frame();
        const std::uint64_t d_ms = c.deadline_us(frame) / 1000;
        INFO("frame " << frame << ", scheduler deadline " << c.deadline_us(frame) << " µs");
        CHECK_FALSE(session.should_tick(d_ms - 1));
        CHECK(session.should_tick(d_ms + 1));
        session.tick();
    }
}
