// The golden corpus in tests/data: files written by an earlier build of retcon must still read
// back to the same worlds and hashes (format stability), and the damaged variants in
// tests/data/corrupt must each be rejected with their named error.
//
// To regenerate after a deliberate format change (bump the format version first) or a change of
// simulation semantics (docs/determinism.md, "Simulation semantics"):
//     retcon_snapshot_tests "[generate]"
// which rewrites tests/data/golden_v1.rcs, golden_v1_b.rcs, golden_v2.rcr and tests/data/corrupt/*
// from the script below. golden_v1.rcr, written by replay format 1, is never rewritten: it is the
// check that this build still reads the previous replay format.
//
// tests/data/golden_semantics1.* are never regenerated: golden_v1.rcs and the golden demo
// match as builds of simulation semantics 1 wrote them (schema format 1). Every build must
// still read them, and refuse by name to re-simulate or restore them.
#include <retcon/snapshot/file.hpp>
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/replay.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "common/bytes.hpp"
#include "common/components.hpp"
#include "common/temp_dir.hpp"
#include "common/world_gen.hpp"
#include "replay_game.hpp"

using namespace retcon;
using namespace retcon::test;

namespace {

const std::filesystem::path data_dir{RETCON_TEST_DATA_DIR};

} // namespace

#if RETCON_ENTITY_64
// The corpus is written with 32-bit handles, so a build with 64-bit ones (RETCON_ENTITY_64)
// cannot read it back, damage it by recipe or regenerate it (that would replace the 32-bit
// files): it checks instead that every golden file is refused by name, by the entity layout its
// schema block records (docs/file-format.md, "Schema block").
TEST_CASE("64-bit handles: the 32-bit golden files are refused by their entity layout", "[snapshot][corpus]") {
    const std::string layout = "entity layout 20+12 bits differs from this build's 32+32";
    for (const char *name : {"golden_v1.rcs", "golden_v1_b.rcs"}) {
        CAPTURE(name);
        auto f = read_snapshot_file(data_dir / name);
        REQUIRE_FALSE(f.ok());
        CHECK_THAT(f.message(), Catch::Contains(layout));
    }
    auto r = replay_reader::open(data_dir / "golden_v1.rcr");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.message(), Catch::Contains(layout));
}
#else
namespace {

// ------------------------------------------------------------------ the fixed script

schema golden_schema() { return grouped_schema(); }

/// The game world after @p frames frames of seeded inputs (two players).
world golden_world(frame_t frames) {
    world w = game::start_world(golden_schema(), 2);
    rng r{11};
    frame_inputs_buffer in{2, game::input_size};
    for (frame_t f = 0; f < frames; ++f) {
        game::make_inputs(r, in);
        game::step(w, in.view(f));
    }
    w.set_resource<rng_state>(std::uint64_t{0x0123456789abcdefull});
    return w;
}

/// The replay golden files: format 1 (kept as written by that format's writer) and the current one.
constexpr const char *golden_replay_v1 = "golden_v1.rcr";
constexpr const char *golden_replay = "golden_v2.rcr";

replay_settings golden_replay_settings(std::uint16_t version = replay_file_version) {
    replay_settings s;
    s.players = 2;
    s.input_size = game::input_size;
    s.keyframe_interval = 16;
    s.full_keyframe_every = 3;
    s.frames_per_chunk = 8;
    s.metadata = {{"game", "retcon golden corpus"}, {"format", "v" + std::to_string(version)}};
    return s;
}

constexpr frame_t golden_frame = 40;
constexpr std::uint32_t replay_frames = 64;

// ------------------------------------------------------------------ damage

void reseal_snapshot(std::vector<std::byte> &b) {
    const auto schema_size = get<std::uint32_t>(b, 24);
    std::vector<std::byte> covered(b.begin(), b.begin() + 56);
    covered.insert(covered.end(), b.begin() + 64, b.begin() + 64 + schema_size);
    put(b, 56, xxh3(covered));
}

/// Offset of the replay chunk after the starting keyframe (the first frames chunk).
std::size_t second_chunk(const std::vector<std::byte> &b) {
    auto r = replay_reader::parse(b, "golden");
    REQUIRE(r.ok());
    const auto &k = r->keyframes()[0];
    return static_cast<std::size_t>(k.offset + 40 + k.stored_bytes);
}
std::size_t keyframe_offset(const std::vector<std::byte> &b, std::size_t index) {
    auto r = replay_reader::parse(b, "golden");
    REQUIRE(r.ok());
    REQUIRE(index < r->keyframes().size());
    return static_cast<std::size_t>(r->keyframes()[index].offset);
}

struct corrupt_case {
    const char *file;   ///< name in tests/data/corrupt
    const char *source; ///< golden file it is made from
    std::function<void(std::vector<std::byte> &)> damage;
    errc expected;
    bool on_check = false; ///< a replay whose damage only check() can see (keyframes decode lazily)
};

const std::vector<corrupt_case> &corrupt_cases() {
    static const std::vector<corrupt_case> cases = {
        {"truncated_header.rcs", "golden_v1.rcs", [](auto &b) { b.resize(40); }, errc::truncated},
        {"truncated_image.rcs", "golden_v1.rcs", [](auto &b) { b.resize(b.size() - 10); }, errc::truncated},
        {"bad_magic.rcs", "golden_v1.rcs", [](auto &b) { b[0] ^= std::byte{0xff}; }, errc::bad_magic},
        {"bad_version.rcs", "golden_v1.rcs", [](auto &b) { put<std::uint16_t>(b, 4, 99); }, errc::bad_version},
        {"header_bitflip.rcs", "golden_v1.rcs", [](auto &b) { b[16] ^= std::byte{0x10}; }, errc::checksum},
        {"schema_bitflip.rcs", "golden_v1.rcs", [](auto &b) { b[80] ^= std::byte{0x01}; }, errc::checksum},
        {"image_checksum.rcs", "golden_v1.rcs",
         [](auto &b) {
             put<std::uint64_t>(b, 48, get<std::uint64_t>(b, 48) ^ 0x8000u);
             reseal_snapshot(b);
         },
         errc::checksum},
        {"bomb.rcs", "golden_v1.rcs",
         [](auto &b) {
             put<std::uint64_t>(b, 32, std::uint64_t{1} << 40);
             reseal_snapshot(b);
         },
         errc::too_large},
        {"trailing_garbage.rcs", "golden_v1.rcs", [](auto &b) { b.insert(b.end(), 7, std::byte{0xee}); },
         errc::corrupt},
        {"truncated_header.rcr", golden_replay, [](auto &b) { b.resize(50); }, errc::truncated},
        {"truncated_keyframe.rcr", golden_replay, [](auto &b) { b.resize(keyframe_offset(b, 0) + 60); },
         errc::truncated},
        {"bad_magic.rcr", golden_replay, [](auto &b) { b[1] ^= std::byte{0x20}; }, errc::bad_magic},
        {"bad_version.rcr", golden_replay, [](auto &b) { put<std::uint16_t>(b, 4, 99); }, errc::bad_version},
        {"metadata_bitflip.rcr", golden_replay, [](auto &b) { b[keyframe_offset(b, 0) - 3] ^= std::byte{0x04}; },
         errc::checksum},
        {"chunk_magic.rcr", golden_replay, [](auto &b) { b[second_chunk(b)] ^= std::byte{0x01}; }, errc::corrupt},
        {"chunk_header_bitflip.rcr", golden_replay, [](auto &b) { b[second_chunk(b) + 8] ^= std::byte{0x02}; },
         errc::checksum},
        {"frames_checksum.rcr", golden_replay, [](auto &b) { b[second_chunk(b) + 33] ^= std::byte{0x40}; },
         errc::checksum},
        {"keyframe_checksum.rcr", golden_replay, [](auto &b) { b[keyframe_offset(b, 1) + 35] ^= std::byte{0x08}; },
         errc::checksum, true},
        {"keyframe_codec.rcr", golden_replay,
         [](auto &b) { // a codec format 2 does not define, its header check resealed
             const std::size_t at = keyframe_offset(b, 0);
             b[at + 5] = std::byte{9};
             put<std::uint32_t>(b, at + 28,
                                static_cast<std::uint32_t>(xxh3(std::span<const std::byte>(b).subspan(at, 28))));
         },
         errc::corrupt},
        {"trailer.rcr", golden_replay, [](auto &b) { b[b.size() - 16] ^= std::byte{0x01}; }, errc::corrupt},
    };
    return cases;
}

/// The error reading @p path gives (opening, then check() for replays).
error read_error(const std::filesystem::path &path, bool &at_check) {
    at_check = false;
    if (path.extension() == ".rcs") {
        auto f = read_snapshot_file(path);
        return f.ok() ? error{} : f.err();
    }
    auto r = replay_reader::open(path);
    if (!r) return r.err();
    at_check = true;
    auto c = r->check();
    return c.ok() ? error{} : c.err();
}

} // namespace

TEST_CASE("generate the golden corpus", "[.generate]") {
    std::filesystem::create_directories(data_dir / "corrupt");
    const world a = golden_world(golden_frame);
    REQUIRE(write_snapshot_file(data_dir / "golden_v1.rcs", a, golden_frame).ok());
    const world b = golden_world(golden_frame + 1);
    REQUIRE(write_snapshot_file(data_dir / "golden_v1_b.rcs", b, golden_frame + 1).ok());
    std::filesystem::remove(data_dir / golden_replay); // a replay is never overwritten
    (void)game::record(data_dir / golden_replay, golden_schema(), golden_replay_settings(), 12, 0, replay_frames);
    for (const auto &c : corrupt_cases()) {
        auto bytes = read_bytes(data_dir / c.source);
        REQUIRE_FALSE(bytes.empty());
        c.damage(bytes);
        REQUIRE(write_bytes(data_dir / "corrupt" / c.file, bytes));
    }
    std::uintmax_t total = 0; // this corpus only (other suites keep files in tests/data too)
    for (const char *name : {"golden_v1.rcs", "golden_v1_b.rcs", golden_replay_v1, golden_replay})
        total += std::filesystem::file_size(data_dir / name);
    for (const auto &e : std::filesystem::directory_iterator(data_dir / "corrupt")) total += e.file_size();
    WARN("the snapshot corpus holds " << total << " bytes");
    CHECK(total < 200u * 1024u);
}

TEST_CASE("golden snapshot files still read back to the same worlds", "[snapshot][corpus]") {
    for (const auto &[name, frame] :
         {std::pair{"golden_v1.rcs", golden_frame}, std::pair{"golden_v1_b.rcs", golden_frame + 1}}) {
        CAPTURE(name);
        const world expected = golden_world(frame);
        auto f = read_snapshot_file(data_dir / name);
        REQUIRE(f.ok());
        CHECK(f->frame == frame);
        CHECK(f->schema == golden_schema());
        CHECK(hash(f->image) == hash(expected));
        world loaded{golden_schema()};
        auto got = load_snapshot_file(data_dir / name, loaded);
        REQUIRE(got.ok());
        CHECK(*got == frame);
        CHECK(capture(loaded) == capture(expected));
        // And the loaded world goes on exactly like the scripted one.
        world scripted = golden_world(frame);
        rng r{frame};
        for (int i = 0; i < 50; ++i) {
            const std::uint64_t seed = r.next();
            rng a{seed}, b{seed};
            random_op(loaded, a);
            random_op(scripted, b);
        }
        CHECK(hash(loaded) == hash(scripted));
    }
}

TEST_CASE("the golden replays of both formats still read, check and verify", "[snapshot][corpus]") {
    const std::uint16_t version = GENERATE(std::uint16_t{1}, replay_file_version);
    CAPTURE(version);
    temp_dir dir;
    const auto rec = game::record(dir / "again.rcr", golden_schema(), golden_replay_settings(), 12, 0, replay_frames);
    auto r = replay_reader::open(data_dir / (version == 1 ? golden_replay_v1 : golden_replay));
    REQUIRE(r.ok());
    CHECK(r->format_version() == version);
    CHECK(r->complete());
    CHECK(r->schema() == golden_schema());
    CHECK(r->start_frame() == 0);
    REQUIRE(r->frame_count() == replay_frames);
    CHECK(r->settings().metadata == golden_replay_settings(version).metadata);
    // Format 1 knows one codec; format 2 writes full keyframes in byte planes.
    CHECK(r->keyframes()[0].codec == (version == 1 ? keyframe_codec::zstd : keyframe_codec::planes));
    CHECK(r->settings().keyframe_interval == 16);
    for (frame_t f = 0; f < replay_frames; ++f) {
        CAPTURE(f);
        const auto record = r->inputs(f).record();
        CHECK(std::equal(record.begin(), record.end(), rec.records[f].begin(), rec.records[f].end()));
        CHECK(r->hash(f) == rec.hashes[f]);
    }
    REQUIRE(r->keyframes().size() == 5);
    CHECK(r->check().ok());
    world w{golden_schema()};
    auto v = verify(*r, w, game::step);
    REQUIRE(v.ok());
    CHECK(v->ok());
    CHECK(v->frames_checked == replay_frames);
    CHECK(hash(w) == rec.hashes.back());
}

TEST_CASE("every file in the corrupt corpus is rejected with its named error", "[snapshot][corpus][hostile]") {
    std::size_t seen = 0;
    for (const auto &c : corrupt_cases()) {
        CAPTURE(c.file);
        const auto path = data_dir / "corrupt" / c.file;
        REQUIRE(std::filesystem::exists(path));
        bool at_check = false;
        const error e = read_error(path, at_check);
        CHECK(e.code == c.expected);
        INFO(to_string(e.code) << ": " << e.message());
        CHECK_FALSE(e.message().empty());
        CHECK(at_check == c.on_check);
        // The corpus matches its recipe (regenerate it if the golden files changed).
        auto bytes = read_bytes(data_dir / c.source);
        c.damage(bytes);
        CHECK(bytes == read_bytes(path));
        ++seen;
    }
    std::size_t on_disk = 0;
    for (const auto &entry : std::filesystem::directory_iterator(data_dir / "corrupt"))
        on_disk += entry.is_regular_file() ? 1u : 0u;
    CHECK(on_disk == seen); // no stray file without an expectation
}

TEST_CASE("files of simulation semantics 1 still read, and are refused by name for simulation",
          "[snapshot][corpus][semantics]") {
    const std::string refusal = "recorded with simulation semantics 1 (retcon's iteration order before forward "
                                "blocks of 4096); this build simulates with semantics " +
                                std::to_string(simulation_semantics) +
                                ", so it cannot be re-simulated: verify it with a semantics-1 build or record it "
                                "again";
    REQUIRE(simulation_semantics != 1);

    const auto snapshot = data_dir / "golden_semantics1.rcs";
    auto f = read_snapshot_file(snapshot);
    REQUIRE(f.ok());
    CHECK(f->frame == golden_frame);
    CHECK(f->schema.semantics() == 1u);
    // The same declarations: the number is all that differs.
    CHECK(schema::differences(f->schema, golden_schema()) ==
          std::vector<std::string>{"simulation semantics 1 vs " + std::to_string(simulation_semantics)});
    world w = golden_world(3);
    const hash64 before = hash(w);
    auto loaded = load_snapshot_file(snapshot, w);
    REQUIRE_FALSE(loaded);
    CHECK(loaded.code() == errc::schema_mismatch);
    CHECK(loaded.message() == snapshot.string() + ": " + refusal);
    CHECK(hash(w) == before); // untouched

    const auto replay = data_dir / "golden_semantics1.rcr"; // the golden demo match
    auto r = replay_reader::open(replay);
    REQUIRE(r.ok());
    CHECK(r->complete());
    CHECK(r->schema().semantics() == 1u);
    CHECK(r->check().ok()); // reading is not simulating: every keyframe decodes and checks
    // A world of any schema: the semantics is refused first, not a mismatch at some frame.
    world any{golden_schema()};
    std::uint64_t stepped = 0;
    auto v = verify(*r, any, [&stepped](world &, const frame_inputs &) { ++stepped; });
    REQUIRE_FALSE(v);
    CHECK(v.code() == errc::bad_version);
    CHECK(v.message() == replay.string() + ": " + refusal);
    CHECK(stepped == 0u);
    auto k = r->restore_keyframe(any, r->start_frame());
    REQUIRE_FALSE(k);
    CHECK(k.code() == errc::bad_version);
    CHECK(k.message() == replay.string() + ": " + refusal);
}
#endif
