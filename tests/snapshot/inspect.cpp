// inspect_file, dump_json, format_field, describe_schema and detect_file_kind: what the retcon
// tool prints.
#include <retcon/snapshot/file.hpp>
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/inspect.hpp>
#include <retcon/snapshot/replay.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/components.hpp"
#include "common/temp_dir.hpp"
#include "common/world_gen.hpp"
#include "json_check.hpp"
#include "replay_game.hpp"

using namespace retcon;
using namespace retcon::test;
using Catch::Matchers::Contains;

namespace {

schema::field make_field(field_kind kind, std::uint32_t size, std::uint32_t count = 1) {
    schema::field f;
    f.name = "f";
    f.size = size;
    f.count = count;
    f.kind = kind;
    return f;
}

template<class T>
std::string show(field_kind kind, const T &value, std::uint32_t count = 1) {
    return format_field(make_field(kind, sizeof(T), count), reinterpret_cast<const std::byte *>(&value));
}

void check_json(const std::string &json) {
    std::string err;
    INFO(json);
    CHECK(json_checker::valid(json, &err));
    INFO(err);
}

} // namespace

TEST_CASE("format_field formats every field kind", "[snapshot][inspect]") {
    CHECK(show(field_kind::boolean, true) == "true");
    CHECK(show(field_kind::boolean, false) == "false");
    CHECK(show(field_kind::i8, std::int8_t{-5}) == "-5");
    CHECK(show(field_kind::i16, std::int16_t{-300}) == "-300");
    CHECK(show(field_kind::i32, std::numeric_limits<std::int32_t>::min()) == "-2147483648");
    CHECK(show(field_kind::i64, std::numeric_limits<std::int64_t>::min()) == "-9223372036854775808");
    CHECK(show(field_kind::u8, std::uint8_t{255}) == "255");
    CHECK(show(field_kind::u16, std::uint16_t{65535}) == "65535");
    CHECK(show(field_kind::u32, std::numeric_limits<std::uint32_t>::max()) == "4294967295");
    CHECK(show(field_kind::u64, std::numeric_limits<std::uint64_t>::max()) == "18446744073709551615");
    CHECK(show(field_kind::f32, 1.5f) == "1.5");
    CHECK(show(field_kind::f32, -0.25f) == "-0.25");
    // Floats print with enough digits to read back the same value.
    const float third = 1.0f / 3.0f;
    CHECK(std::stof(show(field_kind::f32, third)) == third);
    CHECK(std::stod(show(field_kind::f64, 0.1)) == 0.1);
    CHECK(show(field_kind::entity, entity_traits::construct(5, 3)) == "5v3");
    CHECK(show(field_kind::entity, null_entity) == "null");
#if RETCON_ENTITY_64
    CHECK(show(field_kind::entity, entity_traits::construct(3'000'000, 70'000)) == "3000000v70000");
#endif

    const char text[8] = {'a', 'b', 'c', 0, 0, 0, 0, 0};
    CHECK(show(field_kind::text, text) == "\"abc\"");
    const char full[4] = {'w', 'x', 'y', 'z'}; // no terminator when full
    CHECK(show(field_kind::text, full) == "\"wxyz\"");

    const std::int32_t ints[3] = {1, 2, -3};
    CHECK(show(field_kind::i32, ints, 3) == "[1, 2, -3]");
    const float floats[2] = {0.5f, 2.0f};
    CHECK(show(field_kind::f32, floats, 2) == "[0.5, 2]");
    const bool bools[2] = {true, false};
    CHECK(show(field_kind::boolean, bools, 2) == "[true, false]");
    const entity handles[2] = {entity_traits::construct(1, 0), null_entity};
    CHECK(show(field_kind::entity, handles, 2) == "[1v0, null]");
    const std::uint8_t raw[3] = {0x0a, 0x0b, 0xff};
    CHECK(show(field_kind::bytes, raw) == "0x0a0bff");
    CHECK(show(field_kind::record, raw) == "0x0a0bff");
    CHECK(show(field_kind::bytes, raw, 3) == "0x0a0bff");
}

TEST_CASE("describe_schema lists every type, field and group", "[snapshot][inspect]") {
    const schema s = grouped_schema();
    const std::string text = describe_schema(s);
    for (const auto &t : s.components()) {
        CHECK_THAT(text, Contains(t.name));
        for (const auto &f : t.fields) CHECK_THAT(text, Contains(f.name + ":"));
    }
    for (const auto &t : s.resources())
        CHECK_THAT(text, Contains("resource " + std::to_string(&t - s.resources().data()) + " " + t.name));
    CHECK_THAT(text, Contains("x:f32@0"));
    CHECK_THAT(text, Contains("hp:i32"));
    CHECK_THAT(text, Contains("frozen (tag)"));
    CHECK_THAT(text, Contains("group position velocity"));
    CHECK_THAT(text, Contains("resource 1 game_clock"));
    // The first line: the hash and which build can re-simulate what the schema recorded.
    const std::string first = text.substr(0, text.find('\n'));
    CHECK_THAT(first, Catch::Matchers::Matches("schema [0-9a-f]{16} \\(simulation semantics " +
                                               std::to_string(simulation_semantics) + "\\)"));
}

TEST_CASE("dump_json lists every live entity with its fields by name", "[snapshot][inspect]") {
    const schema s = standard_schema();
    world w{s};
    const entity a = w.create();
    const entity gone = w.create();
    const entity b = w.create();
    w.emplace<position>(a, 1.5f, -2.0f);
    w.emplace<health>(a, 7, std::uint16_t{3}, std::uint8_t{1}, std::uint8_t{0});
    w.emplace<name_tag>(b, fixed_string<16>{"say \"hi\"\\"});
    w.emplace<target>(b, a);
    w.emplace<frozen>(b);
    inventory inv{};
    inv.items.push_back(4);
    w.emplace<inventory>(b, inv);
    w.emplace<velocity>(b, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity());
    w.destroy(gone);
    w.set_resource<game_clock>(42u, 60u);

    const std::string json = dump_json(save(w, 12), s);
    check_json(json);
    CHECK_THAT(json, Contains("\"frame\":12"));
    CHECK_THAT(json, Contains("\"alive\":2"));
    CHECK_THAT(json, Contains("\"entity\":\"0v0\""));
    CHECK_THAT(json, Contains("\"entity\":\"2v0\""));
    CHECK_THAT(json, !Contains("\"entity\":\"1v"));
    CHECK_THAT(json, Contains("\"position\":{\"x\":1.5,\"y\":-2}"));
    CHECK_THAT(json, Contains("\"hp\":7"));
    CHECK_THAT(json, Contains("\"who\":\"0v0\""));
    CHECK_THAT(json, Contains("\"frozen\":{}"));
    CHECK_THAT(json, Contains("\"items\""));
    CHECK_THAT(json, Contains("\"game_clock\":{\"frame\":42,\"tick_hz\":60}"));
    CHECK_THAT(json, !Contains("rng_state")); // not set

    // Random worlds always dump valid JSON naming every live entity.
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        const world r = make_random_world(grouped_schema(), seed, 30);
        const std::string dump = dump_json(save(r), r.get_schema());
        check_json(dump);
        r.each([&](entity e) {
            CHECK_THAT(dump, Contains("\"entity\":\"" + std::to_string(to_index(e)) + "v" +
                                      std::to_string(to_version(e)) + "\""));
        });
    }
}

TEST_CASE("dump_json of a malformed image is a JSON error object", "[snapshot][inspect][hostile]") {
    world_image junk;
    std::memset(junk.prepare(100), 0x7f, 100);
    const std::string json = dump_json(junk, standard_schema());
    check_json(json);
    CHECK_THAT(json, Contains("\"error\""));
}

TEST_CASE("detect_file_kind tells snapshots, replays and strangers apart", "[snapshot][inspect]") {
    temp_dir dir;
    const world w = make_random_world(standard_schema(), 1, 10);
    REQUIRE(write_snapshot_file(dir / "a.rcs", w, 5).ok());
    (void)game::record(dir / "b.rcr", standard_schema(), replay_settings{}, 1, 0, 5);
    REQUIRE(write_bytes(dir / "c.txt", std::vector<std::byte>(10, std::byte{'x'})));
    REQUIRE(write_bytes(dir / "d.bin", std::vector<std::byte>(2, std::byte{'R'})));
    CHECK(*detect_file_kind(dir / "a.rcs") == file_kind::snapshot);
    CHECK(*detect_file_kind(dir / "b.rcr") == file_kind::replay);
    CHECK(*detect_file_kind(dir / "c.txt") == file_kind::unknown);
    CHECK(detect_file_kind(dir / "d.bin").code() == errc::truncated);
    CHECK(detect_file_kind(dir / "missing").code() == errc::io);
}

TEST_CASE("a retcon file with a byte-swapped magic is called big-endian, not a stranger",
          "[snapshot][inspect][hostile]") {
    // The magic is the byte-order mark (docs/file-format.md, "Conventions"): sniffing a file
    // of either kind written by a big-endian host says so.
    temp_dir dir;
    const world w = make_random_world(standard_schema(), 1, 10);
    REQUIRE(write_snapshot_file(dir / "a.rcs", w, 5).ok());
    (void)game::record(dir / "b.rcr", standard_schema(), replay_settings{}, 1, 0, 5);
    for (const char *name : {"a.rcs", "b.rcr"}) {
        CAPTURE(name);
        auto bytes = read_bytes(dir / name);
        std::swap(bytes[0], bytes[3]);
        std::swap(bytes[1], bytes[2]);
        REQUIRE(write_bytes(dir / name, bytes));
        auto kind = detect_file_kind(dir / name);
        CHECK(kind.code() == errc::bad_magic);
        CHECK_THAT(kind.message(), Contains(name) && Contains("big-endian") && Contains("little-endian only"));
        auto text = inspect_file(dir / name);
        CHECK(text.code() == errc::bad_magic);
        CHECK_THAT(text.message(), Contains("big-endian"));
        CHECK_THAT(text.message(), !Contains("not a retcon"));
    }
    // Another order of the same four bytes is a stranger, as before.
    auto rotated = read_bytes(dir / "a.rcs");
    std::rotate(rotated.begin(), rotated.begin() + 1, rotated.begin() + 4);
    REQUIRE(write_bytes(dir / "c.bin", rotated));
    CHECK(*detect_file_kind(dir / "c.bin") == file_kind::unknown);
    auto text = inspect_file(dir / "c.bin");
    CHECK(text.code() == errc::bad_magic);
    CHECK_THAT(text.message(),
               Contains("not a retcon snapshot (.rcs) or replay (.rcr) file") && !Contains("big-endian"));
}

TEST_CASE("inspect_file describes a snapshot file", "[snapshot][inspect]") {
    temp_dir dir;
    const world w = make_random_world(grouped_schema(), 2, 40);
    REQUIRE(write_snapshot_file(dir / "s.rcs", w, 4321).ok());
    auto text = inspect_file(dir / "s.rcs");
    REQUIRE(text.ok());
    CHECK_THAT(*text, Contains("retcon snapshot file"));
    CHECK_THAT(*text, Contains("frame: 4321"));
    CHECK_THAT(*text, Contains("ratio"));
    CHECK_THAT(*text, Contains("zstd level 3"));
    CHECK_THAT(*text, Contains(std::to_string(w.alive()) + " live"));
    CHECK_THAT(*text, Contains("pool position: " + std::to_string(w.size<position>()) + " components"));
    CHECK_THAT(*text, Contains("group position velocity"));
    CHECK_THAT(*text, Contains("component 5 inventory"));
    CHECK_THAT(*text, Contains("resource game_clock"));
}

TEST_CASE("inspect_file describes a replay file", "[snapshot][inspect]") {
    temp_dir dir;
    replay_settings settings;
    settings.players = 2;
    settings.keyframe_interval = 10;
    settings.full_keyframe_every = 2;
    settings.metadata = {{"game", "inspect-test"}};
    (void)game::record(dir / "r.rcr", standard_schema(), settings, 3, 100, 35);
    auto text = inspect_file(dir / "r.rcr");
    REQUIRE(text.ok());
    CHECK_THAT(*text, Contains("retcon replay file"));
    CHECK_THAT(*text, Contains("frames: 100..135 (35 frames at 60 Hz)"));
    CHECK_THAT(*text, Contains("players: 2"));
    CHECK_THAT(*text, Contains("complete: yes"));
    CHECK_THAT(*text, Contains("keyframes: 4 (2 full"));
    CHECK_THAT(*text, Contains("2 delta, ratio"));
    CHECK_THAT(*text, Contains("meta game = inspect-test"));
    CHECK_THAT(*text, Contains("component 0 position"));

    (void)game::record(dir / "cut.rcr", standard_schema(), settings, 3, 0, 15, /*finish=*/false);
    auto cut = inspect_file(dir / "cut.rcr");
    REQUIRE(cut.ok());
    CHECK_THAT(*cut, Contains("complete: no"));
}

TEST_CASE("inspect_file reports unreadable files", "[snapshot][inspect][hostile]") {
    temp_dir dir;
    CHECK(inspect_file(dir / "none").code() == errc::io);
    REQUIRE(write_bytes(dir / "junk", std::vector<std::byte>(64, std::byte{0x20})));
    auto j = inspect_file(dir / "junk");
    CHECK(j.code() == errc::bad_magic);
    CHECK_THAT(j.message(), Contains("junk"));
    const world w = make_random_world(standard_schema(), 1, 10);
    REQUIRE(write_snapshot_file(dir / "t.rcs", w, 1).ok());
    auto bytes = read_bytes(dir / "t.rcs");
    bytes.resize(bytes.size() - 5);
    REQUIRE(write_bytes(dir / "t.rcs", bytes));
    CHECK(inspect_file(dir / "t.rcs").code() == errc::truncated);
}
