// A replay file's own timeline as a trace (net/include/retcon/net/replay_trace.hpp; docs/cli.md,
// "trace"): frames, keyframes, joins, leaves and replaced inputs of a written replay, judged by the
// strict checker; a damaged replay or an unwritable path gives an error and no file.
#include <retcon/net/replay_trace.hpp>
#include <retcon/snapshot/replay.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "common/components.hpp"
#include "common/temp_dir.hpp"
#include "common/trace_checker.hpp"

using namespace retcon;
using namespace retcon::test;
using Catch::Matchers::Contains;

namespace {

/// 40 frames of 3 slots: slot 0 plays throughout, slot 1 joins at frame 5 and leaves at frame 25,
/// slot 2 plays throughout and the server replaced its input on frames 7 and 8.
std::filesystem::path write_match(const temp_dir &dir) {
    replay_settings settings;
    settings.players = 3;
    settings.input_size = 2;
    settings.tick_hz = 30;
    settings.keyframe_interval = 10;
    settings.full_keyframe_every = 3;
    const world w{standard_schema()};
    const auto path = dir / "match.rcr";
    auto writer = replay_writer::create(path, w, 0, settings);
    REQUIRE(writer.ok());
    const std::array<std::byte, 2> input{std::byte{1}, std::byte{2}};
    for (frame_t f = 0; f < 40; ++f) {
        frame_inputs_buffer in{settings.players, settings.input_size};
        in.set_bytes(0, input);
        if (f >= 5 && f < 25) in.set_bytes(1, input);
        in.set_bytes(2, input, f == 7 || f == 8 ? slot_flags::present | slot_flags::replaced : slot_flags::present);
        REQUIRE(writer->add_frame(in.view(f), w).ok());
    }
    REQUIRE(writer->finish().ok());
    return path;
}

} // namespace

TEST_CASE("a replay's timeline has a slice per frame and its keyframes, joins, leaves and replaced inputs",
          "[net][trace]") {
    temp_dir dir;
    auto reader = replay_reader::open(write_match(dir));
    REQUIRE(reader.ok());
    const auto out = dir / "t.json";
    const auto summary = write_replay_trace(*reader, out);
    REQUIRE(summary.ok());
    CHECK(summary->frames == 40);
    CHECK(summary->keyframes == reader->keyframes().size());
    CHECK(summary->keyframes >= 4);
    CHECK(summary->joins == 3); // slots 0 and 2 from the first frame, slot 1 at frame 5
    CHECK(summary->leaves == 1);
    CHECK(summary->replaced_inputs == 2);
    CHECK(summary->tick_ns == 33'333'333);

    const trace_check c = check_trace_file(out);
    INFO((c.ok() ? std::string{} : c.problems.front()));
    REQUIRE(c.ok());
    CHECK(c.summary.slices.at("frame") == 40);
    CHECK(c.summary.nested_in.empty());                   // frames follow each other
    CHECK(c.summary.arg_sums.at("frame.frame") == 780.0); // 0 + 1 + ... + 39
    CHECK(c.summary.arg_sums.at("frame.players") == 2.0 * 40 + 20);
    CHECK(c.summary.instants.at("keyframe") == summary->keyframes);
    CHECK(c.summary.instants.at("player_joined") == 3);
    CHECK(c.summary.instants.at("player_left") == 1);
    CHECK(c.summary.texts.at("player_left") == std::vector<std::string>{"frame 25: slot 1"});
    CHECK(c.summary.texts.at("input_replaced") == std::vector<std::string>{"frame 7: slot 2", "frame 8: slot 2"});
    CHECK(c.summary.counters.at("players") == 3); // 2 at first, 3 at frame 5, 2 at frame 25
    CHECK_THAT(c.summary.texts.at("keyframe").front(), Contains("frame 0: full"));

    // Synthetic time: frame 39 starts at 39 x 1/30 s, in µs.
    const std::vector<std::byte> bytes = read_bytes(out);
    const std::string json{reinterpret_cast<const char *>(bytes.data()), bytes.size()};
    CHECK_THAT(json, Contains("\"ts\":1299999.987"));
    CHECK_THAT(json, Contains("retcon replay match.rcr"));
    // The same replay gives the same file.
    const auto again = dir / "again.json";
    REQUIRE(write_replay_trace(*reader, again).ok());
    CHECK(read_bytes(again) == bytes);
}

TEST_CASE("a damaged replay or an unwritable path gives an error and no trace file", "[net][trace]") {
    temp_dir dir;
    const auto path = write_match(dir);
    {
        auto reader = replay_reader::open(path);
        REQUIRE(reader.ok());
        const auto out = dir / "missing dir" / "t.json";
        const auto r = write_replay_trace(*reader, out);
        CHECK(r.code() == errc::io);
        CHECK_FALSE(std::filesystem::exists(out));
    }
    // A bit flipped inside the last keyframe's stored bytes: the file opens (keyframes are
    // decoded on demand), but its timeline is never written.
    std::vector<std::byte> bytes = read_bytes(path);
    std::uint64_t at = 0;
    {
        auto reader = replay_reader::open(path);
        REQUIRE(reader.ok());
        const replay_keyframe &k = reader->keyframes().back();
        at = k.offset + 24 + k.stored_bytes / 2;
    }
    REQUIRE(at < bytes.size());
    bytes[at] ^= std::byte{0x40};
    const auto damaged = dir / "damaged.rcr";
    REQUIRE(write_bytes(damaged, bytes));
    auto reader = replay_reader::open(damaged);
    REQUIRE(reader.ok());
    const auto out = dir / "damaged.json";
    const auto r = write_replay_trace(*reader, out);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.message(), Contains("damaged.rcr"));
    CHECK_FALSE(std::filesystem::exists(out));
}
