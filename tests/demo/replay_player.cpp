// The replay player both replay screens drive: seeking, stepping, speed, and the verification it
// reports, on a short recording of the demo (demo_replay.hpp) and on copies of it that are cut or
// damaged.
#include <catch2/catch.hpp>

#include <common/temp_dir.hpp>
#include <retcon/snapshot.hpp>
#include <retcon_demo/game.hpp>

#include <algorithm>
#include <vector>

#include "demo/demo_replay.hpp"
#include "replay_player.hpp"

using namespace retcon;
using namespace retcon::demo;
using Catch::Matchers::Contains;

namespace {

/// The recording under test (demo_replay.hpp): short, so the sanitizer builds run it quickly too.
std::string recording() { return retcon::demo::testing::short_replay().string(); }

std::unique_ptr<replay_player> open_recording() {
    auto p = replay_player::open(recording());
    REQUIRE(p.ok());
    return std::move(*p);
}

/// The recording's world re-simulated from its first frame, independently of the player.
struct from_the_start {
    replay_reader r;
    world w{make_schema()};
    game g;
    frame_t frame;
    explicit from_the_start(replay_reader reader) : r{std::move(reader)} {
        auto k = r.restore_keyframe(w, r.start_frame());
        REQUIRE(k.ok());
        frame = *k;
    }
    hash64 at(frame_t target) {
        REQUIRE(target >= frame);
        for (; frame < target; ++frame) g.step(w, r.inputs(frame));
        return hash(w);
    }
};

/// The worlds at the start of frames @p targets by one walk from the start that uses neither the
/// player nor any keyframe after the first: what a seek must land on.
struct truth_images {
    std::vector<frame_t> frames; // sorted, no repeats
    std::vector<std::vector<std::byte>> images;
    truth_images(replay_reader reader, const std::vector<frame_t> &targets) : frames{targets} {
        std::sort(frames.begin(), frames.end());
        frames.erase(std::unique(frames.begin(), frames.end()), frames.end());
        from_the_start truth{std::move(reader)};
        for (const frame_t f : frames) {
            (void)truth.at(f);
            const world_image img = save(truth.w, 0);
            images.emplace_back(img.bytes().begin(), img.bytes().end());
        }
    }
    /// True if @p w is, byte for byte, the world at the start of frame @p f (one of the targets).
    [[nodiscard]] bool matches(frame_t f, const world &w) const {
        const auto at = static_cast<std::size_t>(std::lower_bound(frames.begin(), frames.end(), f) - frames.begin());
        const world_image got = save(w, 0);
        return std::equal(got.bytes().begin(), got.bytes().end(), images.at(at).begin(), images.at(at).end());
    }
};

/// The frame of the latest keyframe at or before @p f.
frame_t keyframe_before(const replay_player &p, frame_t f) {
    frame_t k = p.keyframes().front();
    for (const frame_t x : p.keyframes())
        if (x <= f) k = x;
    return k;
}

} // namespace

TEST_CASE("a seek lands on the frame asked for, in the world a re-simulation from the start gives",
          "[demo][replay_player]") {
    auto p = open_recording();
    const replay_status st = p->status();
    REQUIRE(st.end - st.start > 1000);
    REQUIRE(p->keyframes().size() > 1);
    const frame_t second_key = p->keyframes()[1];
    auto reader = replay_reader::open(recording());
    REQUIRE(reader.ok());
    from_the_start truth{std::move(*reader)};
    // Targets in increasing order (the independent walk only goes forward); the player is sent
    // back and forth between them: a keyframe, the frames either side of one, a frame between.
    std::vector<frame_t> targets{st.start + 1, second_key - 1, second_key, second_key + 1, 1000, st.end - 1, st.end};
    std::sort(targets.begin(), targets.end());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
    for (const frame_t f : targets) {
        INFO("frame " << f);
        const hash64 expected = truth.at(f);
        REQUIRE(p->seek(f).ok());
        CHECK(p->frame() == f);
        CHECK(hash(p->current()) == expected);
        CHECK(hash(p->current()) == p->reader().hash(f - 1)); // as recorded after the frame before
        REQUIRE(p->seek(st.start).ok());                      // and back, so the next seek starts far from its target
        CHECK(p->frame() == st.start);
    }
    // Out of range: clamped to the recording.
    REQUIRE(p->seek(st.end + 500).ok());
    CHECK(p->frame() == st.end);
    CHECK(p->status().at_end());
    CHECK_FALSE(p->advance());
}

TEST_CASE("seeks to seeded random frames, in any order, land on the world a re-simulation from the start gives",
          "[demo][replay_player]") {
    auto p = open_recording();
    const replay_status st = p->status();
    auto reader = replay_reader::open(recording());
    REQUIRE(reader.ok());
    // Every keyframe and the frames either side of it, and seeded random frames.
    std::vector<frame_t> targets{st.start, st.end};
    for (const frame_t k : p->keyframes())
        for (const frame_t f : {k - 1, k, k + 1})
            if (f >= st.start && f <= st.end) targets.push_back(f);
    std::uint64_t seed = 0x5eed;
    for (int i = 0; i < 40; ++i) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        targets.push_back(st.start + static_cast<frame_t>((seed >> 33) % (st.end - st.start + 1u)));
    }
    const truth_images truth{std::move(*reader), targets};
    // The player seeks in the seeded (unsorted) order, back and forth.
    for (const frame_t f : targets) {
        INFO("frame " << f);
        REQUIRE(p->seek(f).ok());
        CHECK(p->frame() == f);
        CHECK(truth.matches(f, p->current()));
    }
    CHECK(p->status().mismatched == 0);
}

TEST_CASE("seeks that start from checkpoints of played frames land on the world a re-simulation gives",
          "[demo][replay_player]") {
    // Keyframes every 600 frames, five checkpoints between two of them.
    test::temp_dir dir;
    const auto path = dir / "sparse.rcr";
    retcon::demo::testing::record_bot_match(path, 9, 3, 600);
    auto opened = replay_player::open(path);
    REQUIRE(opened.ok());
    replay_player &p = **opened;
    REQUIRE(p.keyframes().size() == 3); // 0, 600, 1200
    CHECK(p.checkpoint_bytes() == 0);
    while (p.advance()) {} // one playback keeps a checkpoint every 120 frames
    CHECK(p.checkpoint_bytes() > 0);
    CHECK(p.status().mismatched == 0);

    auto reader = replay_reader::open(path);
    REQUIRE(reader.ok());
    std::vector<frame_t> targets{1, 119, 120, 121, 599, 600, 601, 719, 720, 1199, 1319, 1320, 1499, 1500};
    std::uint64_t seed = 0xc0ffee;
    for (int i = 0; i < 30; ++i) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        targets.push_back(static_cast<frame_t>((seed >> 33) % 1501u));
    }
    const truth_images truth{std::move(*reader), targets};
    for (const frame_t f : targets) {
        INFO("frame " << f);
        REQUIRE(p.seek(f).ok());
        CHECK(p.frame() == f);
        CHECK(truth.matches(f, p.current()));
    }
    // Without checkpoints the same seeks land on the same worlds from the file's keyframes.
    p.drop_checkpoints();
    CHECK(p.checkpoint_bytes() == 0);
    for (const frame_t f : {719u, 1319u, 121u}) {
        REQUIRE(p.seek(f).ok());
        CHECK(truth.matches(f, p.current()));
    }
}

TEST_CASE("a single step moves one frame, and only while paused", "[demo][replay_player]") {
    auto p = open_recording();
    REQUIRE(p->seek(500).ok());
    const auto verified = p->status().verified;
    CHECK_FALSE(p->step()); // playing: stepping is for a paused player
    CHECK(p->frame() == 500);
    p->set_paused(true);
    REQUIRE(p->step());
    CHECK(p->frame() == 501);
    CHECK(hash(p->current()) == p->reader().hash(500));
    CHECK(p->status().verified == verified + 1);
    CHECK(p->play(10.0) == 0); // paused: time does not play
    CHECK(p->frame() == 501);
}

TEST_CASE("playing moves with wall time at the speed, within the speed limits", "[demo][replay_player]") {
    auto p = open_recording();
    const auto hz = p->tick_hz();
    REQUIRE(hz % 4 == 0);
    // A quarter second in sixteenths (exact in binary): a quarter of the tick rate, then half of it
    // at double speed.
    std::uint32_t played = 0;
    for (int i = 0; i < 4; ++i) played += p->play(1.0 / 16);
    CHECK(played == hz / 4);
    CHECK(p->frame() == p->status().start + hz / 4);
    p->faster();
    CHECK(p->speed() == 2);
    played = 0;
    for (int i = 0; i < 4; ++i) played += p->play(1.0 / 16);
    CHECK(played == hz / 2);
    for (int i = 0; i < 20; ++i) p->faster();
    CHECK(p->speed() == replay_player::max_speed);
    for (int i = 0; i < 20; ++i) p->slower();
    CHECK(p->speed() == replay_player::min_speed);
    p->set_speed(1);
    // A long stall is not caught up all at once: at most a quarter second of playback.
    const frame_t before = p->frame();
    CHECK(p->play(30.0) <= hz / 4 + 1);
    CHECK(p->frame() > before);
}

TEST_CASE("the player counts each frame it verifies once, and a seek verifies the frame it lands after",
          "[demo][replay_player]") {
    auto p = open_recording();
    CHECK(p->status().verified == 0);
    const frame_t target = p->keyframes()[1] + 37;
    REQUIRE(target - keyframe_before(*p, target) == 37);
    REQUIRE(p->seek(target).ok());
    // Re-simulated from the keyframe before the target, only the last frame hashed and checked.
    CHECK(p->status().verified == 1);
    for (int i = 0; i < 10; ++i) REQUIRE(p->advance());
    const auto after = p->status().verified;
    CHECK(after == 11);
    REQUIRE(p->seek(target).ok()); // the same frame again: nothing new verified
    CHECK(p->status().verified == after);
    CHECK(p->status().mismatched == 0);
    CHECK_FALSE(p->status().first_mismatch);
    CHECK(p->status().complete);
    CHECK(p->status().truncation_note.empty());
}

TEST_CASE("a frame whose recorded hash is wrong is a mismatch, named by its frame", "[demo][replay_player]") {
    test::temp_dir dir;
    const auto path = dir / "wrong.rcr";
    {
        world w{make_schema()};
        init_world(w);
        replay_settings settings;
        settings.players = 2;
        settings.input_size = sizeof(player_input);
        settings.keyframe_interval = 60;
        auto writer = replay_writer::create(path, w, 0, settings);
        REQUIRE(writer.ok());
        game g;
        frame_inputs_buffer in{2, sizeof(player_input)};
        in.set(0, player_input{1, 1, 1, 0});
        for (frame_t f = 0; f < 150; ++f) {
            g.step(w, in.view(f));
            // Frame 50's hash recorded wrong; the world itself, and the keyframes, stay right.
            REQUIRE(writer->add_frame(in.view(f), w, f == 50 ? std::optional{hash(w) ^ 1} : std::nullopt).ok());
        }
        REQUIRE(writer->finish().ok());
    }
    auto p = replay_player::open(path);
    REQUIRE(p.ok());
    while ((*p)->advance()) {}
    const replay_status st = (*p)->status();
    CHECK(st.at_end());
    CHECK(st.mismatched == 1);
    CHECK(st.verified == 149);
    REQUIRE(st.first_mismatch);
    CHECK(*st.first_mismatch == 50);
    // A seek checks only the frame it lands after: a wrong hash between is not seen.
    auto fresh = replay_player::open(path);
    REQUIRE(fresh.ok());
    REQUIRE((*fresh)->seek(55).ok());
    CHECK((*fresh)->status().verified == 1);
    CHECK((*fresh)->status().mismatched == 0);
    // Landing right after it, the seek sees it.
    REQUIRE((*fresh)->seek(51).ok());
    CHECK((*fresh)->status().mismatched == 1);
    CHECK(*(*fresh)->status().first_mismatch == 50);
}

TEST_CASE("a cut copy of a replay is reported incomplete, its readable frames verified", "[demo][replay_player]") {
    test::temp_dir dir;
    const auto bytes = test::read_bytes(recording());
    REQUIRE(bytes.size() > 1000);
    const auto cut = dir / "cut.rcr";
    REQUIRE(
        test::write_bytes(cut, {bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(bytes.size() * 6 / 10)}));
    auto p = replay_player::open(cut);
    REQUIRE(p.ok());
    const replay_status st = (*p)->status();
    CHECK_FALSE(st.complete);
    CHECK_FALSE(st.truncation_note.empty());
    auto whole = replay_player::open(recording());
    REQUIRE(whole.ok());
    REQUIRE(st.end > st.start);
    CHECK(st.end < (*whole)->status().end);
    while ((*p)->advance()) {}
    CHECK((*p)->status().verified == st.end - st.start);
    CHECK((*p)->status().mismatched == 0);
}

TEST_CASE("a damaged, foreign or missing file is a clear error", "[demo][replay_player]") {
    test::temp_dir dir;
    auto bytes = test::read_bytes(recording());
    REQUIRE(bytes.size() > 1000);
    SECTION("a byte flipped in the middle") {
        bytes[bytes.size() / 2] ^= std::byte{0x5a};
        REQUIRE(test::write_bytes(dir / "flipped.rcr", bytes));
        auto p = replay_player::open(dir / "flipped.rcr");
        REQUIRE_FALSE(p.ok());
        CHECK_THAT(p.message(), Contains("flipped.rcr"));
    }
    SECTION("not a replay") {
        REQUIRE(test::write_bytes(dir / "text.rcr", std::vector<std::byte>(64, std::byte{'x'})));
        auto p = replay_player::open(dir / "text.rcr");
        REQUIRE_FALSE(p.ok());
        CHECK(p.code() == errc::bad_magic);
    }
    SECTION("no such file") {
        auto p = replay_player::open(dir / "absent.rcr");
        REQUIRE_FALSE(p.ok());
        CHECK(p.code() == errc::io);
    }
}
