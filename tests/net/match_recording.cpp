// match_recording (net/src/match_recording.hpp): the server's replay of its match, and how a
// failure ends it (docs/net.md, "Recording and ending a match").
#include <catch2/catch.hpp>

#include <common/temp_dir.hpp>
#include <common/test_game.hpp>

#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/replay.hpp>

#include "match_recording.hpp"

using namespace retcon;
using namespace retcon::test;

namespace {

replay_settings two_players() {
    replay_settings rs;
    rs.players = 2;
    rs.input_size = sizeof(game_input);
    return rs;
}

} // namespace

TEST_CASE("match_recording: no path records nothing, and says it started", "[net][parts]") {
    world w{game_schema()};
    init_game(w);
    internal::match_recording r;
    CHECK_FALSE(r.started());
    CHECK(r.start({}, w, 0, two_players()).ok());
    CHECK(r.started());
    CHECK_FALSE(r.recording());
    frame_inputs_buffer in{2, sizeof(game_input)};
    CHECK(r.add(in.view(0), w, hash(w)).ok());
    CHECK(r.finish().ok());
}

TEST_CASE("match_recording: records the frames added, from the world it started with", "[net][parts]") {
    temp_dir dir;
    world w{game_schema()};
    init_game(w);
    internal::match_recording r;
    REQUIRE(r.start(dir / "m.rcr", w, 40, two_players()).ok());
    CHECK(r.recording());
    frame_inputs_buffer in{2, sizeof(game_input)};
    for (frame_t f = 40; f < 50; ++f) {
        in.set(0, game_input{1, 0, 0, 0});
        step_game(w, in.view(f));
        REQUIRE(r.add(in.view(f), w, hash(w)).ok());
    }
    REQUIRE(r.finish().ok());
    CHECK_FALSE(r.recording());
    auto replay = replay_reader::open(dir / "m.rcr");
    REQUIRE(replay.ok());
    CHECK(replay->complete());
    CHECK(replay->start_frame() == 40u);
    CHECK(replay->end_frame() == 50u);
    CHECK(replay->hash(49) == hash(w));
}

TEST_CASE("match_recording: a replay that cannot be created is an error, and nothing is recorded", "[net][parts]") {
    temp_dir dir;
    world w{game_schema()};
    init_game(w);
    internal::match_recording r;
    const auto started = r.start(dir / "missing" / "m.rcr", w, 0, two_players());
    CHECK_FALSE(started.ok());
    CHECK_THAT(started.message(), Catch::Contains("missing"));
    CHECK(r.started());
    CHECK_FALSE(r.recording());
    frame_inputs_buffer in{2, sizeof(game_input)};
    CHECK(r.add(in.view(0), w, hash(w)).ok()); // the match goes on unrecorded
}
