// The matches' lifecycle: what session events change of a match's record, when a running match
// ends and why, and the result it leaves (docs/hosting.md, "Drain" and "Inside the host").
// Times are injected.
#include <catch2/catch.hpp>

#include "host/host_fixture.hpp"
#include "match_lifecycle.hpp"

using namespace retcon;

namespace {

constexpr std::uint64_t s = 1'000'000; // µs

hosted_match two_slot_match() {
    hosted_match m;
    m.id = "m";
    m.slots.resize(2);
    for (int i = 0; i < 2; ++i) m.slots[static_cast<std::size_t>(i)].slot = i;
    return m;
}

session_event event(session_event_kind kind, int slot, std::string text = {}) {
    session_event ev;
    ev.kind = kind;
    ev.slot = slot;
    ev.text = std::move(text);
    return ev;
}

} // namespace

TEST_CASE("lifecycle: joins name their slot, leaving clears presence until the match ends", "[host][lifecycle]") {
    auto m = two_slot_match();
    auto joined = event(session_event_kind::player_joined, 1, "ada joined"); // the text is only for logs
    joined.name = "ada";
    CHECK(apply_event(m, joined) == event_effect::joined);
    CHECK(m.joins == 1);
    CHECK(m.had_player);
    CHECK(m.slots[1].name == "ada");
    CHECK(m.slots[1].present_at_end);
    CHECK(apply_event(m, event(session_event_kind::player_left, 1)) == event_effect::left);
    CHECK_FALSE(m.slots[1].present_at_end);
    apply_event(m, joined);
    m.ending = true; // leaving because the match ends: present at the end
    apply_event(m, event(session_event_kind::player_left, 1));
    CHECK(m.slots[1].present_at_end);
    // A slot out of range (a spectator's -1) changes no slot.
    CHECK(apply_event(m, event(session_event_kind::player_joined, 5, "x")) == event_effect::joined);
    CHECK(m.slots[0].name.empty());
    // A forensic desync file that could not be written is not the replay; the replay is.
    auto forensic = event(session_event_kind::recording_failed, -1);
    forensic.path = "forensics/desync-slot0-frame9-server.rcs";
    CHECK(apply_event(m, forensic) == event_effect::none);
    CHECK_FALSE(m.recording_failed);
    m.replay = "replays/m.rcr";
    auto replay = event(session_event_kind::recording_failed, -1, "replays/m.rcr: No space left on device");
    replay.path = m.replay.string();
    CHECK(apply_event(m, replay) == event_effect::recording_failed);
    CHECK(m.recording_failed);
    CHECK(m.recording_error == "replays/m.rcr: No space left on device");
    // The first failure stopped the recording: a later one (finishing it) is neither counted
    // again nor the reason.
    auto again = event(session_event_kind::recording_failed, -1, "replays/m.rcr: finish: Bad file descriptor");
    again.path = m.replay.string();
    CHECK(apply_event(m, again) == event_effect::none);
    CHECK(m.recording_error == "replays/m.rcr: No space left on device");
}

TEST_CASE("lifecycle: a running match ends for a drain, its duration, or being empty", "[host][lifecycle]") {
    host_options o;
    o.empty_timeout_ms = 10'000;
    o.drain_grace_ms = 30'000;
    drain_control d;
    auto m = two_slot_match();
    m.opened_us = 1 * s;
    // Open mode waits for the first player; token mode does not.
    CHECK_FALSE(end_reason_now(m, 0, 2 * s, o, d, true));
    CHECK_FALSE(end_reason_now(m, 0, 11 * s, o, d, true));
    CHECK(end_reason_now(m, 0, 12 * s, o, d, false) == "nobody joined");
    m.had_player = true;
    CHECK_FALSE(end_reason_now(m, 1, 13 * s, o, d, true)); // a player: no longer empty
    CHECK_FALSE(end_reason_now(m, 0, 14 * s, o, d, true)); // empty since 14 s
    CHECK_FALSE(end_reason_now(m, 0, 23 * s, o, d, true));
    CHECK(end_reason_now(m, 0, 24 * s, o, d, true) == "players left");

    auto busy = two_slot_match();
    o.match_duration_ms = 60'000;
    CHECK_FALSE(end_reason_now(busy, 2, 59 * s, o, d, true));
    CHECK(end_reason_now(busy, 2, 60 * s, o, d, true) == "duration");
    o.match_duration_ms = 0;

    d.request();
    REQUIRE(d.take_requests(100 * s).started);
    CHECK(end_reason_now(m, 0, 100 * s, o, d, true) == "drain"); // empty: at once
    CHECK_FALSE(end_reason_now(busy, 2, 129 * s, o, d, true));   // within the grace
    CHECK(end_reason_now(busy, 2, 130 * s, o, d, true) == "drain");
    d.request();
    REQUIRE(d.take_requests(101 * s).forced);
    CHECK(end_reason_now(busy, 2, 101 * s, o, d, true) == "drain forced");
}

TEST_CASE("lifecycle: an ended match's result without a session is its record and its world's hash",
          "[host][lifecycle]") {
    auto m = two_slot_match();
    auto game = test::counter_game(test::params_of(2, 4));
    REQUIRE(game.ok());
    m.game = std::move(*game);
    m.opened_us = 2 * s;
    m.end_reason = "drain";
    m.joins = 3;
    m.slots[0].name = "ada";
    m.replay = "/tmp/none.rcr";
    auto r = result_of(m, 5 * s);
    CHECK(r.match_id == "m");
    CHECK(r.end_reason == "drain");
    CHECK(r.duration_s == Approx(3.0));
    CHECK(r.joins == 3);
    CHECK(r.final_frame == 0);
    CHECK(r.final_hash == hash(*m.game.state));
    CHECK(r.slots[0].name == "ada");
    CHECK(r.replay_path == "/tmp/none.rcr");
    // The hash of the last confirmed frame wins (a step that threw left the world between frames),
    // and a failed recording is no replay.
    CHECK_FALSE(r.recording_failed);
    CHECK(r.recording_error.empty());
    m.last_hash = 0x1234;
    m.recording_failed = true;
    m.recording_error = "/tmp/none.rcr: No space left on device";
    r = result_of(m, 5 * s);
    CHECK(r.final_hash == 0x1234);
    CHECK(r.replay_path.empty());
    CHECK(r.recording_failed);
    CHECK(r.recording_error == "/tmp/none.rcr: No space left on device");
}

namespace {
/// A transport nothing arrives on.
class quiet_transport final : public transport {
public:
    void send(peer_id, wire::channel, std::span<const std::byte>) override {}
    void disconnect(peer_id) override {}
    void poll(std::uint64_t, transport_handler &) override {}
};
} // namespace

TEST_CASE("lifecycle: an opened match's session clock starts at the scheduler's origin, not when it opened",
          "[host][lifecycle][scheduler]") {
    auto o = test::local_options();
    o.max_matches = 3;
    transport_mux mux{std::make_unique<quiet_transport>()};
    frame_scheduler scheduler{0};
    host_metrics live;
    std::vector<std::string> log;
    result_writer results{[&](std::string_view l) { log.emplace_back(l); }};
    match_lifecycle life{
        o, test::counter_game, mux, scheduler, live, results, [&](std::string_view l) { log.emplace_back(l); }};
    const std::uint64_t opened_at = 7'654'321;
    const auto first = life.open("m0", test::params_of(2, 1), opened_at); // phase 0
    REQUIRE(first.ok());
    const auto second = life.open("m1", test::params_of(2, 2), opened_at);
    REQUIRE(second.ok());
    hosted_match &m = *life.matches()[*second];
    CHECK(life.find("m1") == *second);
    CHECK(live.matches_opened == 2);
    CHECK(life.matches()[*first]->clock.phase == 0);
    CHECK(m.clock.phase == frame_scheduler::phases(m.params.tick_hz) / 2); // half a period later
    CHECK(m.clock.deadline_us(m.clock.first_frame) >= opened_at);
    CHECK(m.clock.deadline_us(m.clock.first_frame) < m.clock.origin_ms * 1000 + 1000);
    // Not polled at its opening: the session's clock has not started (else it would tick).
    CHECK_FALSE(m.session->should_tick(m.clock.origin_ms + 1'000'000));
    // The loop's first poll, however late, starts it at the origin: one clock.
    m.session->poll(m.clock.session_time_ms(m.clock.origin_ms * 1000 + 5'000));
    CHECK_FALSE(m.session->should_tick(m.clock.origin_ms - 1));
    CHECK(m.session->should_tick(m.clock.origin_ms));
    // A game that refuses the settings opens nothing and leaves the place free.
    const auto refused = life.open("bad", test::params_of(2, 3, "refuse"), opened_at);
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.message(), Catch::Contains("the game refused the match settings"));
    CHECK_FALSE(life.find("bad"));
    CHECK(life.running() == 2);
    CHECK_FALSE(life.matches()[2]);
    results.close();
}
