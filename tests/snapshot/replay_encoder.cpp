// The replay encoder: replays written through its thread are the bytes the writer writes on its
// own, whether jobs ran on the thread, were taken back by a writer with no free slot, or were
// still queued when the writer finished; errors come back from the writer's calls; a warm
// writer hands off without allocating.
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/replay.hpp>
#include <retcon/snapshot/replay_encoder.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/bytes.hpp"
#include "common/components.hpp"
#include "common/counting_allocator.hpp"
#include "common/temp_dir.hpp"
#include "encoder_queue.hpp"
#include "replay_game.hpp"

using namespace retcon;
using namespace retcon::test;
using Catch::Matchers::Contains;

namespace {

replay_settings encoder_settings() { return game::replay_settings_for(2, 4); }

/// Several games played side by side, each recorded by its own writer, frame by frame in turn.
struct games {
    std::vector<world> worlds;
    std::vector<replay_writer> writers;
    std::vector<rng> rngs;
    frame_inputs_buffer inputs;

    games(const std::filesystem::path &dir, std::size_t n, const replay_settings &settings)
        : inputs{settings.players, settings.input_size} {
        const schema s = standard_schema();
        for (std::size_t i = 0; i < n; ++i) {
            worlds.push_back(game::start_world(s, settings.players));
            auto w = replay_writer::create(dir / ("g" + std::to_string(i) + ".rcr"), worlds.back(), 0, settings);
            REQUIRE(w.ok());
            writers.push_back(std::move(*w));
            rngs.emplace_back(100 + i);
        }
    }

    void play(frame_t from, frame_t to) {
        for (frame_t f = from; f < to; ++f)
            for (std::size_t i = 0; i < writers.size(); ++i) {
                game::make_inputs(rngs[i], inputs);
                game::step(worlds[i], inputs.view(f));
                REQUIRE(writers[i].add_frame(inputs.view(f), worlds[i]).ok());
            }
    }

    void finish() {
        for (auto &w : writers) REQUIRE(w.finish().ok());
    }
};

/// Writes @p n games of @p frames frames without an encoder into @p dir.
void write_plain(const std::filesystem::path &dir, std::size_t n, frame_t frames) {
    games g{dir, n, encoder_settings()};
    g.play(0, frames);
    g.finish();
}

void check_same_files(const std::filesystem::path &a, const std::filesystem::path &b, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const auto name = "g" + std::to_string(i) + ".rcr";
        CAPTURE(name);
        const auto left = read_bytes(a / name), right = read_bytes(b / name);
        REQUIRE(left.size() > 1000);
        CHECK(left == right);
        auto r = replay_reader::open(b / name);
        REQUIRE(r.ok());
        CHECK(r->complete());
        CHECK(r->check().ok());
    }
}

} // namespace

TEST_CASE("replays written through an encoder are the bytes written without one", "[snapshot][replay][encoder]") {
    temp_dir dir;
    std::filesystem::create_directories(dir / "plain");
    std::filesystem::create_directories(dir / "encoded");
    write_plain(dir / "plain", 4, 95);
    auto enc = std::make_shared<replay_encoder>();
    auto settings = encoder_settings();
    settings.encoder = enc;
    games g{dir / "encoded", 4, settings};
    g.play(0, 95);
    g.finish();
    check_same_files(dir / "plain", dir / "encoded", 4);
    const auto st = enc->stats();
    CHECK(st.queued == 0);
    CHECK(st.jobs + st.overflows > 0);
}

TEST_CASE("a writer with no free slot writes its queued jobs itself, in order, and counts an overflow",
          "[snapshot][replay][encoder]") {
    temp_dir dir;
    std::filesystem::create_directories(dir / "plain");
    std::filesystem::create_directories(dir / "encoded");
    write_plain(dir / "plain", 3, 95);
    replay_encoder_options o;
    o.slots_per_writer = 1;
    auto enc = std::make_shared<replay_encoder>(o);
    enc->queue().hold(true); // the thread starts nothing: every second hand-off finds no slot
    auto settings = encoder_settings();
    settings.encoder = enc;
    games g{dir / "encoded", 3, settings};
    g.play(0, 95);
    const auto held = enc->stats();
    CHECK(held.jobs == 0);
    CHECK(held.overflows > 20);
    CHECK(held.queued <= 3); // at most each writer's one slot waits
    g.finish();              // finish takes those back
    CHECK(enc->stats().queued == 0);
    enc->queue().hold(false);
    check_same_files(dir / "plain", dir / "encoded", 3);
}

TEST_CASE("replays through an encoder with one slot a writer and a busy thread are still the same bytes",
          "[snapshot][replay][encoder]") {
    // Whichever way each hand-off goes (queued, taken back, or a slot added while the thread
    // writes one of the writer's jobs), the file is the same.
    temp_dir dir;
    std::filesystem::create_directories(dir / "plain");
    std::filesystem::create_directories(dir / "encoded");
    write_plain(dir / "plain", 6, 200);
    replay_encoder_options o;
    o.slots_per_writer = 1;
    o.low_priority = false;
    auto enc = std::make_shared<replay_encoder>(o);
    auto settings = encoder_settings();
    settings.encoder = enc;
    games g{dir / "encoded", 6, settings};
    g.play(0, 200);
    g.finish();
    check_same_files(dir / "plain", dir / "encoded", 6);
}

TEST_CASE("finish writes the jobs still queued: the file is complete and verifies", "[snapshot][replay][encoder]") {
    temp_dir dir;
    auto enc = std::make_shared<replay_encoder>();
    enc->queue().hold(true);
    auto settings = encoder_settings();
    settings.encoder = enc;
    const auto rec = game::record(dir / "q.rcr", standard_schema(), settings, 7, 0, 15);
    // Nothing ran on the thread: the writer took its jobs back when its slots were full, and
    // finish took back the rest.
    CHECK(enc->stats().jobs == 0);
    CHECK(enc->stats().queued == 0);
    auto r = replay_reader::open(dir / "q.rcr");
    REQUIRE(r.ok());
    CHECK(r->complete());
    CHECK(r->frame_count() == 15);
    CHECK(r->keyframes().size() == 2);
    CHECK(r->check().ok());
    for (frame_t f = 0; f < 15; ++f) CHECK(r->hash(f) == rec.hashes[f]);
    enc->queue().hold(false);
}

TEST_CASE("an unfinished writer's last frames are written by the encoder after the writer is gone",
          "[snapshot][replay][encoder]") {
    temp_dir dir;
    auto settings = encoder_settings();
    {
        auto enc = std::make_shared<replay_encoder>();
        enc->queue().hold(true);
        settings.encoder = enc;
        games g{dir.path(), 1, settings};
        g.play(0, 13);
        settings.encoder.reset(); // the writer and `enc` hold the encoder now
    } // the writer queues frames 12 and 13 and goes; the encoder writes everything before it stops
    auto r = replay_reader::open(dir / "g0.rcr");
    REQUIRE(r.ok());
    CHECK_FALSE(r->complete());
    INFO(r->truncation_note());
    CHECK(r->frame_count() == 13);
    CHECK(r->check().ok());
}

TEST_CASE("a replay the encoder cannot create is an error from the writer's next call, the file left as it was",
          "[snapshot][replay][encoder]") {
    temp_dir dir;
    const auto path = dir / "taken.rcr";
    std::ofstream{path, std::ios::binary} << "someone else's file";
    auto settings = encoder_settings();
    settings.encoder = std::make_shared<replay_encoder>();
    world w = game::start_world(standard_schema(), settings.players);
    auto writer = replay_writer::create(path, w, 0, settings);
    REQUIRE(writer.ok()); // the encoder's thread creates the file
    settings.encoder->flush();
    frame_inputs_buffer inputs{settings.players, settings.input_size};
    const auto r = writer->add_frame(inputs.view(0), w);
    REQUIRE_FALSE(r.ok());
    CHECK(r.code() == errc::io);
    CHECK_THAT(r.message(), Contains(path.string()));
    CHECK(writer->finish().code() == errc::io); // the same error, again
    const auto kept = read_bytes(path);
    const std::string text = "someone else's file";
    REQUIRE(kept.size() == text.size());
    CHECK(std::memcmp(kept.data(), text.data(), text.size()) == 0);
}

TEST_CASE("a warm writer hands keyframes and chunks to the encoder without allocating",
          "[snapshot][replay][encoder][allocations]") {
    temp_dir dir;
    replay_encoder_options o;
    o.slots_per_writer = 4;
    auto enc = std::make_shared<replay_encoder>(o);
    auto settings = encoder_settings();
    settings.frames_per_chunk = 10; // one hand-off a keyframe: chunk and keyframe together
    settings.encoder = enc;
    const schema s = standard_schema();
    world w{s};
    const auto e = w.create();
    w.emplace<position>(e, position{1.0F, 2.0F}); // the image keeps its size: the slots stay warm
    auto writer = replay_writer::create(dir / "a.rcr", w, 0, settings);
    REQUIRE(writer.ok());
    frame_inputs_buffer inputs{settings.players, settings.input_size};
    frame_t f = 0;
    const auto play = [&](frame_t frames) {
        for (const frame_t end = f + frames; f < end; ++f) {
            w.get<position>(e).x += 1.0F;
            REQUIRE(writer->add_frame(inputs.view(f), w).ok());
        }
    };
    enc->flush();
    // Warm-up: four hand-offs held, twice, so that each slot has held a keyframe and each frame
    // buffer (the writer's and the slots', which trade places) a whole chunk.
    for (int round = 0; round < 2; ++round) {
        enc->queue().hold(true);
        play(40);
        enc->queue().hold(false);
        enc->flush();
    }
    enc->queue().hold(true); // the four hand-offs below stay queued: none is taken back
    {
        allocation_counter counter;
        play(40);
        CHECK(counter.count() == 0);
    }
    CHECK(enc->stats().queued == 4);
    CHECK(enc->stats().overflows == 0);
    enc->queue().hold(false);
    REQUIRE(writer->finish().ok());
    auto r = replay_reader::open(dir / "a.rcr");
    REQUIRE(r.ok());
    CHECK(r->frame_count() == 120);
    CHECK(r->check().ok());
}
