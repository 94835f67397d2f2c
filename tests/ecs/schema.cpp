// schema: declaration order is identity; hash, canonical bytes, parse of hostile input, diffs.
#include "common/components.hpp"
#include "common/misuse.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace schema_test {
// Same names as the standard components, different layouts: the hash must see the difference.
namespace wider {
struct position {
    float x, y, z;
};
RETCON_COMPONENT(position, x, y, z);
} // namespace wider
namespace renamed {
struct position {
    float u, v;
};
RETCON_COMPONENT(position, u, v);
} // namespace renamed
namespace retyped {
struct position {
    std::int32_t x, y;
};
RETCON_COMPONENT(position, x, y);
} // namespace retyped

struct undeclared {
    std::uint32_t v;
};
RETCON_COMPONENT(undeclared, v);

// 256 characters: one more than a name may have in the canonical form.
struct
    a012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234 {
    std::uint32_t v;
};
RETCON_COMPONENT(
    a012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234,
    v);
using long_name =
    a012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234;

// Types at and just over the largest size a parsed schema accepts (1 MiB), and over-aligned.
struct largest {
    std::uint8_t bytes[schema::max_type_size];
};
RETCON_COMPONENT(largest, bytes);
struct too_large {
    std::uint8_t bytes[schema::max_type_size + 16];
};
RETCON_COMPONENT(too_large, bytes);
struct alignas(2 * schema::max_align) over_aligned {
    std::uint8_t bytes[2 * schema::max_align];
};
RETCON_COMPONENT(over_aligned, bytes);
} // namespace schema_test

using namespace schema_test;

namespace {
std::vector<std::byte> bytes_of(const schema &s) { return s.serialize(); }

/// schema::parse over @p b; @p error receives the error's text (empty on success).
result<schema> parse(const std::vector<std::byte> &b, std::string &error) {
    auto r = schema::parse(std::span<const std::byte>(b.data(), b.size()));
    error = r.message();
    return r;
}

/// The code of parse(@p b)'s error (errc::ok on success).
errc code_of(const std::vector<std::byte> &b) {
    return schema::parse(std::span<const std::byte>(b.data(), b.size())).code();
}

void put_u32(std::vector<std::byte> &b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::byte>(v >> (8 * i));
}
} // namespace

TEST_CASE("component ids follow declaration order", "[schema]") {
    schema s;
    s.component<health>().component<position>().component<frozen>();
    REQUIRE(s.components().size() == 3);
    CHECK(s.components()[0].name == "health");
    CHECK(s.components()[1].name == "position");
    CHECK(s.components()[2].name == "frozen");
    CHECK(s.find_component("position") == 1u);
    CHECK(s.find_component("velocity") == schema::npos);
    CHECK(s.component_info(0).name == "health");
    CHECK(s.component_info(1).size == sizeof(position));
    CHECK(s.component_info(2).is_tag());
    CHECK(s.components()[0].fields.size() == 4);

    // Two schemas declaring the same types in the same order agree, whatever was touched
    // first at run time (type_seq is process-local; ids are not).
    schema t;
    (void)internal::type_seq<frozen>();
    t.component<health>().component<position>().component<frozen>();
    CHECK(s == t);
    CHECK(s.hash() == t.hash());

    const schema std_schema = standard_schema();
    REQUIRE(std_schema.resources().size() == 2);
    CHECK(std_schema.resources()[0].name == "rng_state");
    CHECK(std_schema.resource_info(1).name == "game_clock");
    CHECK(std_schema.groups().empty());
    const schema grouped = grouped_schema();
    REQUIRE(grouped.groups().size() == 1);
    CHECK(grouped.groups()[0] == std::vector<std::uint16_t>{0, 1});
}

TEST_CASE("schema hash: equal declarations give equal hashes, any difference changes it", "[schema]") {
    const auto h = standard_schema().hash();
    CHECK(standard_schema().hash() == h);
    CHECK(grouped_schema().hash() != h);

    auto base = [] {
        schema s;
        s.component<position>().component<velocity>();
        return s;
    };
    const auto b = base().hash();

    schema order;
    order.component<velocity>().component<position>();
    CHECK(order.hash() != b);

    schema size;
    size.component<wider::position>().component<velocity>();
    CHECK(size.hash() != b);

    schema field_name;
    field_name.component<renamed::position>().component<velocity>();
    CHECK(field_name.hash() != b);

    schema field_kind;
    field_kind.component<retyped::position>().component<velocity>();
    CHECK(field_kind.hash() != b);

    schema extra = base();
    extra.component<frozen>();
    CHECK(extra.hash() != b);

    schema as_resource;
    as_resource.component<position>().resource<velocity>();
    CHECK(as_resource.hash() != b);

    schema grouped = base();
    grouped.group<position, velocity>();
    schema grouped_reversed = base();
    grouped_reversed.group<velocity, position>();
    CHECK(grouped.hash() != b);
    CHECK(grouped_reversed.hash() != grouped.hash());

    std::vector<std::uint64_t> all{b,
                                   order.hash(),
                                   size.hash(),
                                   field_name.hash(),
                                   field_kind.hash(),
                                   extra.hash(),
                                   as_resource.hash(),
                                   grouped.hash(),
                                   grouped_reversed.hash()};
    std::sort(all.begin(), all.end());
    CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
}

TEST_CASE("schema copies and moves keep working views", "[schema]") {
    schema a = grouped_schema();
    schema copy = a;
    CHECK(copy == a);
    CHECK(copy.component_info(3).name == "name_tag");
    CHECK(copy.component_info(0).fields[1].name == "y");
    schema moved = std::move(copy);
    CHECK(moved == a);
    CHECK(moved.component_info(0).fields[0].name == "x");
    schema assigned;
    assigned = a;
    CHECK(assigned.hash() == a.hash());
    assigned = std::move(moved);
    CHECK(assigned.component_info(5).name == "inventory");
    // Declaring more types after a copy does not disturb the copy.
    schema grown = a;
    grown.component<undeclared>();
    CHECK(a.components().size() == 8);
    CHECK(a.component_info(0).name == "position");
    CHECK(grown.component_info(8).name == "undeclared");
}

TEST_CASE("serialize then parse round-trips", "[schema]") {
    for (const schema &s : {schema{}, standard_schema(), grouped_schema()}) {
        const auto bytes = bytes_of(s);
        std::string error;
        const auto parsed = parse(bytes, error);
        REQUIRE(parsed);
        CHECK(error.empty());
        CHECK(parsed->serialize() == bytes);
        CHECK(parsed->hash() == s.hash());
        CHECK(*parsed == s);
        CHECK(schema::differences(*parsed, s).empty());
        REQUIRE(parsed->components().size() == s.components().size());
        for (std::size_t i = 0; i < s.components().size(); ++i) {
            CHECK(parsed->component_info(i).name == s.component_info(i).name);
            CHECK(parsed->component_info(i).fields.size() == s.component_info(i).fields.size());
        }
    }
}

TEST_CASE("parse rejects truncation at every byte offset", "[schema][parse]") {
    const auto bytes = bytes_of(grouped_schema());
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        std::string error;
        const std::vector<std::byte> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
        INFO("length " << n);
        const auto r = parse(cut, error);
        REQUIRE_FALSE(r);
        REQUIRE_THAT(error, Catch::StartsWith("schema"));
        REQUIRE(r.code() == errc::truncated);
        // The offset is where the field (number or name) that does not fit starts.
        REQUIRE(r.err().offset <= n);
        REQUIRE(r.err().offset + schema::max_name >= n);
    }
    std::string error;
    const auto r = parse({}, error);
    REQUIRE_FALSE(r);
    CHECK_THAT(error, Catch::Contains("truncated"));
    CHECK(r.err().offset == 0u);
}

TEST_CASE("parse rejects trailing bytes", "[schema][parse]") {
    auto bytes = bytes_of(standard_schema());
    bytes.push_back(std::byte{0});
    std::string error;
    const auto r = parse(bytes, error);
    REQUIRE_FALSE(r);
    CHECK_THAT(error, Catch::Contains("trailing"));
    CHECK(r.code() == errc::corrupt);
    CHECK(r.err().offset == bytes.size() - 1u);
}

TEST_CASE("parse rejects bad magic, version and entity layout", "[schema][parse]") {
    const auto good = bytes_of(standard_schema());
    std::string error;
    auto bad = good;
    bad[0] ^= std::byte{0x01};
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("magic"));
    CHECK(code_of(bad) == errc::bad_magic);
    // A fixed text is static, with the offset after it; a text with numbers has them before.
    CHECK(error == "schema: bad magic (not a retcon schema block) at byte 4");

    // The magic is the byte-order mark (docs/file-format.md, "Conventions"): swapped, it names
    // a big-endian writer; another order of the same bytes is plain bad magic.
    bad = good;
    std::swap(bad[0], bad[3]);
    std::swap(bad[1], bad[2]);
    REQUIRE_FALSE(parse(bad, error));
    CHECK(code_of(bad) == errc::bad_magic);
    CHECK_THAT(error, Catch::Contains("big-endian") && Catch::Contains("little-endian only"));
    bad = good;
    std::rotate(bad.begin(), bad.begin() + 1, bad.begin() + 4);
    REQUIRE_FALSE(parse(bad, error));
    CHECK(code_of(bad) == errc::bad_magic);
    CHECK(error == "schema: bad magic (not a retcon schema block) at byte 4");

    bad = good;
    bad[4] = std::byte{3}; // format version 3
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("version 3"));
    CHECK(code_of(bad) == errc::bad_version);
    CHECK(error == "schema at byte 6: format version 3 is not supported (this build reads 1 to 2)");
    bad[4] = std::byte{0};
    CHECK(code_of(bad) == errc::bad_version);

    bad = good;
    bad[6] = std::byte{24}; // index bits
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("entity layout"));
    CHECK(code_of(bad) == errc::bad_version);

    SECTION("every single bit flip in the header is rejected") {
        // Header: magic (4), format (2), index bits (1), version bits (1), then (after the
        // simulation semantics, below) the component count (4).
        for (std::size_t byte = 0; byte < 14; ++byte)
            for (int bit = 0; bit < 8; ++bit) {
                if (byte == 8 || byte == 9) continue;
                auto flipped = good;
                flipped[byte] ^= static_cast<std::byte>(1u << bit);
                INFO("byte " << byte << " bit " << bit);
                REQUIRE_FALSE(parse(flipped, error));
                REQUIRE_FALSE(error.empty());
            }
    }
    SECTION("no bit flip anywhere crashes the parser") {
        for (std::size_t byte = 0; byte < good.size(); ++byte)
            for (int bit = 0; bit < 8; ++bit) {
                auto flipped = good;
                flipped[byte] ^= static_cast<std::byte>(1u << bit);
                const auto parsed = parse(flipped, error);
                if (parsed) {
                    // Whatever was accepted is self-consistent: it re-serialises to the input.
                    REQUIRE(parsed->serialize() == flipped);
                } else {
                    REQUIRE_FALSE(error.empty());
                }
            }
    }
}

TEST_CASE("the schema records this build's simulation semantics", "[schema][semantics]") {
    const schema declared = standard_schema();
    CHECK(declared.semantics() == simulation_semantics);
    CHECK(check_simulation(declared).ok());
    // Format 2: magic, format, entity bits, then the semantics as a little-endian u16.
    const auto bytes = bytes_of(declared);
    CHECK(static_cast<unsigned>(bytes[4]) == 2u);
    CHECK(static_cast<unsigned>(bytes[5]) == 0u);
    CHECK((static_cast<unsigned>(bytes[8]) | static_cast<unsigned>(bytes[9]) << 8) == simulation_semantics);
    // So the hash covers it: the same declarations with another number hash differently.
    auto other = bytes;
    other[8] = static_cast<std::byte>(simulation_semantics + 1);
    std::string error;
    const auto parsed = parse(other, error);
    REQUIRE(parsed);
    CHECK(parsed->semantics() == simulation_semantics + 1);
    CHECK(parsed->hash() != declared.hash());
    CHECK(*parsed != declared);
    const auto d = schema::differences(*parsed, declared);
    REQUIRE(d.size() == 1);
    CHECK(d[0] == "simulation semantics " + std::to_string(simulation_semantics + 1) + " vs " +
                      std::to_string(simulation_semantics));
    // A copy keeps the number it was parsed with.
    const schema copy = *parsed; // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(copy.semantics() == simulation_semantics + 1);
    CHECK(copy.serialize() == other);
}

namespace {
/// @p block (format 2) as format 1 wrote it: format 1 and no semantics field.
std::vector<std::byte> as_format1(std::vector<std::byte> block) {
    block[4] = std::byte{1};
    block.erase(block.begin() + 8, block.begin() + 10);
    return block;
}
} // namespace

TEST_CASE("format 1 reads as simulation semantics 1 and keeps its bytes and hash", "[schema][semantics]") {
    for (const schema &s : {schema{}, standard_schema(), grouped_schema()}) {
        const auto old = as_format1(bytes_of(s));
        std::string error;
        const auto parsed = parse(old, error);
        REQUIRE(parsed);
        CHECK(parsed->semantics() == 1u);
        CHECK(parsed->components().size() == s.components().size());
        CHECK(parsed->groups().size() == s.groups().size());
        // Files of format 1 carry the hash of these bytes: re-serialised, they are unchanged.
        CHECK(parsed->serialize() == old);
        CHECK(parsed->hash() != s.hash());
        CHECK(schema::differences(*parsed, s) ==
              std::vector<std::string>{"simulation semantics 1 vs " + std::to_string(simulation_semantics)});
        const auto refused = check_simulation(*parsed);
        REQUIRE_FALSE(refused);
        CHECK(refused.code() == errc::bad_version);
        CHECK(refused.message() ==
              "recorded with simulation semantics 1 (retcon's iteration order before forward blocks of 4096); this "
              "build simulates with semantics " +
                  std::to_string(simulation_semantics) +
                  ", so it cannot be re-simulated: verify it with a semantics-1 build or record it again");
    }
}

TEST_CASE("parse refuses a semantics format 2 cannot hold, and a cut inside the field", "[schema][semantics]") {
    const auto good = bytes_of(standard_schema());
    std::string error;
    for (const unsigned semantics : {0u, 1u}) { // 1 is written as format 1 only: one canonical form
        auto bad = good;
        bad[8] = static_cast<std::byte>(semantics);
        bad[9] = std::byte{0};
        const auto r = parse(bad, error);
        REQUIRE_FALSE(r);
        CHECK(r.code() == errc::corrupt);
        CHECK(error == "schema at byte 10: simulation semantics " + std::to_string(semantics) +
                           " in format 2 (which records semantics 2 or later)");
    }
    const std::vector<std::byte> cut(good.begin(), good.begin() + 9);
    const auto r = parse(cut, error);
    REQUIRE_FALSE(r);
    CHECK(r.code() == errc::truncated);
    // A number from a newer build parses (tools read its files) but does not simulate here.
    auto newer = good;
    newer[9] = std::byte{1}; // 256 + this build's
    const auto parsed = parse(newer, error);
    REQUIRE(parsed);
    const auto refused = check_simulation(*parsed);
    CHECK(refused.code() == errc::bad_version);
    CHECK_THAT(refused.message(),
               Catch::StartsWith("recorded with simulation semantics " + std::to_string(256 + simulation_semantics) +
                                 " (newer than this build)"));
    SECTION("no bit flip of the field passes as this build's semantics") {
        for (std::size_t byte = 8; byte < 10; ++byte)
            for (int bit = 0; bit < 8; ++bit) {
                auto flipped = good;
                flipped[byte] ^= static_cast<std::byte>(1u << bit);
                INFO("byte " << byte << " bit " << bit);
                const auto p = parse(flipped, error);
                if (p) REQUIRE_FALSE(check_simulation(*p));
            }
    }
}

TEST_CASE("parse rejects absurd counts and impossible types", "[schema][parse]") {
    const auto good = bytes_of(standard_schema());
    std::string error;

    auto bad = good;
    put_u32(bad, 10, 0xFFFFFFF0u); // component count
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("component types"));
    CHECK(code_of(bad) == errc::too_large);

    bad = good;
    put_u32(bad, 10, static_cast<std::uint32_t>(schema::max_types) + 1u);
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("limit"));

    // First component: name length (1) + "position" (8), then size, align, field count.
    const std::size_t type0 = 14;
    REQUIRE(static_cast<std::uint8_t>(bad[type0]) == 8u);
    const std::size_t size_at = type0 + 1 + 8;
    const std::size_t align_at = size_at + 4;
    const std::size_t nfields_at = align_at + 4;

    bad = good;
    put_u32(bad, size_at, 1u << 30);
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("impossible size"));
    CHECK(code_of(bad) == errc::too_large);

    bad = good;
    put_u32(bad, size_at, 6); // under the limit, but not a multiple of the alignment (4)
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("impossible size 6"));
    CHECK(code_of(bad) == errc::corrupt);

    bad = good;
    put_u32(bad, align_at, 3);
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("alignment 3"));
    CHECK(code_of(bad) == errc::corrupt);

    bad = good;
    bad[nfields_at] = std::byte{0xFF};
    bad[nfields_at + 1] = std::byte{0xFF};
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("65535 fields"));
    CHECK(code_of(bad) == errc::too_large);

    bad = good;
    bad[type0] = std::byte{0}; // empty type name
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("empty type name"));
    CHECK(code_of(bad) == errc::corrupt);
}

TEST_CASE("parse rejects field tables that do not tile their type", "[schema][parse]") {
    // schema with one component `position` {x: 0..4, y: 4..8}
    schema s;
    s.component<position>();
    const auto good = bytes_of(s);
    std::string error;
    REQUIRE(parse(good, error));
    // Field records start after: header 14, name 9, size 4, align 4, nfields 2 = 33.
    const std::size_t field0 = 33;
    REQUIRE(static_cast<char>(good[field0 + 1]) == 'x');
    // Each field record: name (1 + 1), offset, size, count (4 each), kind (1).
    const std::size_t field1 = field0 + 2 + 4 + 4 + 4 + 1;
    REQUIRE(static_cast<char>(good[field1 + 1]) == 'y');
    const std::size_t f1_offset = field1 + 2, f1_size = f1_offset + 4, f1_count = f1_size + 4, f1_kind = f1_count + 4;

    auto bad = good;
    put_u32(bad, f1_size, 2); // y covers 2 of 4 bytes: a gap
    put_u32(bad, f1_count, 1);
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("cover"));

    bad = good;
    put_u32(bad, f1_offset, 6); // y sticks out of the type
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("outside"));

    bad = good;
    put_u32(bad, f1_offset, 0); // x and y overlap; bytes 4..8 covered by nothing
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("position"));

    bad = good;
    put_u32(bad, f1_count, 0);
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("bad count"));

    bad = good;
    bad[f1_kind] = std::byte{200};
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("unknown kind"));
}

TEST_CASE("parse rejects bad groups and duplicate names", "[schema][parse]") {
    schema s;
    s.component<position>().component<velocity>().group<position, velocity>();
    const auto good = bytes_of(s);
    std::string error;
    REQUIRE(parse(good, error));
    // The group block is the last 4 + 2 + 2*2 bytes.
    const std::size_t groups_at = good.size() - 10;
    auto bad = good;
    put_u32(bad, groups_at, 5);
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("groups for"));

    bad = good;
    bad[good.size() - 2] = std::byte{7}; // second id out of range
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("out of range"));

    bad = good;
    bad[good.size() - 2] = std::byte{0}; // both ids 0: owned twice
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("already owned"));
    CHECK(code_of(bad) == errc::corrupt);

    bad = good;
    bad[good.size() - 6] = std::byte{1}; // group of one type
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("1 types"));

    // "position" and "velocity" have the same length: rename the second to the first.
    bad = good;
    const std::string velocity_name = "velocity";
    const auto it = std::search(bad.begin(), bad.end(), velocity_name.begin(), velocity_name.end(),
                                [](std::byte x, char c) { return static_cast<char>(x) == c; });
    REQUIRE(it != bad.end());
    const std::string position_name = "position";
    for (std::size_t i = 0; i < position_name.size(); ++i)
        *(it + static_cast<std::ptrdiff_t>(i)) = static_cast<std::byte>(position_name[i]);
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("duplicate component 'position'"));
}

TEST_CASE("parse rejects a resource named like a component", "[schema][parse]") {
    // schema::resource refuses a name a component already has: parse must agree. The
    // component "inventory" and the resource "rng_state" have the same length.
    const auto good = bytes_of(standard_schema());
    std::string error;
    REQUIRE(parse(good, error));
    auto bad = good;
    const std::string from = "rng_state";
    const std::string to = "inventory";
    const auto it = std::search(bad.begin(), bad.end(), from.begin(), from.end(),
                                [](std::byte x, char c) { return static_cast<char>(x) == c; });
    REQUIRE(it != bad.end());
    for (std::size_t i = 0; i < to.size(); ++i) *(it + static_cast<std::ptrdiff_t>(i)) = static_cast<std::byte>(to[i]);
    REQUIRE_FALSE(parse(bad, error));
    CHECK_THAT(error, Catch::Contains("resource 'inventory' has the same name as a component"));
}

TEST_CASE("differences names what differs", "[schema]") {
    CHECK(schema::differences(standard_schema(), standard_schema()).empty());

    schema a;
    a.component<position>().component<velocity>();
    schema b;
    b.component<wider::position>().component<velocity>();
    auto d = schema::differences(a, b);
    REQUIRE(d.size() == 1);
    CHECK_THAT(d[0], Catch::Contains("position") && Catch::Contains("size"));

    schema c;
    c.component<renamed::position>().component<velocity>();
    d = schema::differences(a, c);
    REQUIRE(d.size() == 1);
    CHECK_THAT(d[0], Catch::Contains("position") && Catch::Contains("field 0 'x' vs 'u'"));
    schema r;
    r.component<retyped::position>().component<velocity>();
    d = schema::differences(a, r);
    REQUIRE(d.size() == 1);
    CHECK_THAT(d[0], Catch::Contains("field 'x' kind 10 x1 at 0 (4 bytes) vs kind 4 x1 at 0 (4 bytes)"));

    schema e;
    e.component<velocity>().component<position>();
    d = schema::differences(a, e);
    REQUIRE(d.size() == 2);
    CHECK_THAT(d[0], Catch::Contains("'position' vs 'velocity'"));

    schema f = a;
    f.component<health>().resource<game_clock>();
    d = schema::differences(a, f);
    REQUIRE(d.size() == 2);
    CHECK_THAT(d[0], Catch::Contains("only in the second") && Catch::Contains("health"));
    CHECK_THAT(d[1], Catch::Contains("resource") && Catch::Contains("game_clock"));
    d = schema::differences(f, a);
    CHECK_THAT(d[0], Catch::Contains("only in the first"));

    schema g = a;
    g.group<position, velocity>();
    d = schema::differences(a, g);
    REQUIRE(d.size() == 1);
    CHECK_THAT(d[0], Catch::Contains("group"));
}

TEST_CASE("misuse: declaring a type twice", "[schema][misuse]") {
    schema s;
    s.component<position>().resource<game_clock>();
    const auto before = s.serialize();
    REQUIRE_MISUSE(s.component<position>(), "already declared as a component");
    REQUIRE_MISUSE(s.resource<position>(), "already declared as a component");
    REQUIRE_MISUSE(s.component<game_clock>(), "already declared as a resource");
    REQUIRE_MISUSE(s.component<renamed::position>(), "position is already declared"); // same name
    CHECK(s.serialize() == before);
}

TEST_CASE("misuse: bad group declarations", "[schema][misuse]") {
    schema s;
    s.component<position>().component<velocity>().component<health>();
    const auto before = s.serialize();
    REQUIRE_MISUSE((s.group<position, undeclared>()), "undeclared, which is not a declared component");
    REQUIRE_MISUSE((s.group<position, position>()), "appears twice");
    s.group<position, velocity>();
    const auto with_group = s.serialize();
    REQUIRE_MISUSE((s.group<health, velocity>()), "already owned");
    CHECK(s.serialize() == with_group);
    CHECK(with_group != before);
}

TEST_CASE("misuse: a type name too long for the canonical form", "[schema][misuse]") {
    STATIC_REQUIRE(type_info_of<long_name>().name.size() == schema::max_name + 1);
    schema s;
    s.component<position>();
    const auto before = s.serialize();
    REQUIRE_MISUSE(s.component<long_name>(), "name");
    REQUIRE_MISUSE(s.resource<long_name>(), "name");
    CHECK(s.serialize() == before);
    std::string error;
    CHECK(parse(before, error));
}

TEST_CASE("misuse: a type larger or more aligned than parse accepts", "[schema][misuse]") {
    schema s;
    s.component<position>();
    const auto before = s.serialize();
    REQUIRE_MISUSE(s.component<too_large>(),
                   "component too_large is 1048592 bytes, larger than the 1048576-byte limit");
    REQUIRE_MISUSE(s.resource<too_large>(), "resource too_large is 1048592 bytes");
    REQUIRE_MISUSE(s.component<over_aligned>(),
                   "component over_aligned has alignment 8192, more than the limit of 4096");
    CHECK(s.serialize() == before);
    // Exactly the limit is declared, and what is declared parses back.
    s.component<largest>();
    std::string error;
    const auto parsed = parse(s.serialize(), error);
    REQUIRE(parsed);
    CHECK(*parsed == s);
    CHECK(parsed->component_info(1).size == schema::max_type_size);
}

// ------------------------------------------------------------------ run-time descriptions

TEST_CASE("a schema declared from run-time descriptions equals the typed one", "[schema][runtime]") {
    schema typed;
    typed.component<position>()
        .component<velocity>()
        .component<health>()
        .component<name_tag>()
        .component<target>()
        .component<inventory>()
        .component<frozen>()
        .resource<rng_state>()
        .resource<game_clock>()
        .group<position, velocity>();
    schema runtime;
    for (std::size_t i = 0; i < typed.components().size(); ++i) {
        const type_info &info = typed.component_info(i);
        REQUIRE(schema::check_type(info).ok());
        runtime.component(info);
    }
    for (std::size_t i = 0; i < typed.resources().size(); ++i) runtime.resource(typed.resource_info(i));
    const std::uint32_t group[] = {0, 1};
    runtime.group(group);
    CHECK(runtime.hash() == typed.hash());
    CHECK(schema::differences(runtime, typed).empty());
    CHECK(runtime.find_resource("game_clock") == 1u);
    CHECK(runtime.find_resource("nothing") == schema::npos);
}

TEST_CASE("check_type refuses descriptions that would not lay out the same everywhere", "[schema][runtime]") {
    const field_info ok_fields[] = {
        {"a", 0, 4, 1, field_kind::u32}, {"pad", 4, 4, 1, field_kind::u32}, {"b", 8, 8, 1, field_kind::u64}};
    CHECK(schema::check_type(type_info{"fine", 16, 8, ok_fields}).ok());

    auto refused = [](const type_info &t, const char *text, std::span<const std::uint32_t> records = {}) {
        const auto r = schema::check_type(t, records);
        REQUIRE_FALSE(r.ok());
        CHECK(r.err().code == errc::invalid_argument);
        CHECK_THAT(r.message(), Catch::Contains(text));
    };
    // i686's layout of { uint32_t a; uint64_t b; }: b at offset 4.
    const field_info i686[] = {{"a", 0, 4, 1, field_kind::u32}, {"b", 4, 8, 1, field_kind::u64}};
    refused(type_info{"i686", 12, 4, i686}, "field 'b' at offset 4 is not at a multiple of its alignment 8");
    const field_info gap[] = {{"a", 0, 4, 1, field_kind::u32}, {"b", 8, 8, 1, field_kind::u64}};
    refused(type_info{"gap", 16, 8, gap}, "a gap (padding) at offset 4");
    const field_info overlap[] = {{"a", 0, 4, 1, field_kind::u32}, {"b", 0, 4, 1, field_kind::u32}};
    refused(type_info{"overlap", 4, 4, overlap}, "fields overlap");
    const field_info width[] = {{"a", 0, 4, 1, field_kind::u16}};
    refused(type_info{"width", 4, 4, width}, "a 2-byte kind, but elements of 4 bytes");
    refused(type_info{"align", 16, 4, ok_fields}, "alignment 4, but its fields need 8");
    const field_info tail[] = {{"b", 0, 8, 1, field_kind::u64}, {"c", 8, 4, 1, field_kind::u32}};
    refused(type_info{"tail", 12, 8, tail}, "not a multiple of its alignment 8");
    refused(type_info{"tag", 0, 1, ok_fields}, "size 0 (a tag) but fields declared");
    const field_info twice[] = {{"a", 0, 4, 1, field_kind::u32}, {"a", 4, 4, 1, field_kind::u32}};
    refused(type_info{"twice", 8, 4, twice}, "field 'a' is declared twice");
    const field_info kind[] = {{"a", 0, 4, 1, static_cast<field_kind>(99)}};
    refused(type_info{"kind", 4, 4, kind}, "unknown kind 99");
    refused(type_info{"", 4, 4, kind}, "1 to 255 characters");
    // A nested record counts with the alignment its declaration gives.
    const field_info nested[] = {{"n", 4, 8, 1, field_kind::record}, {"a", 0, 4, 1, field_kind::u32}};
    const std::uint32_t eight[] = {8, 0};
    refused(type_info{"nested", 12, 8, nested}, "field 'n' at offset 4", eight);
    const std::uint32_t four[] = {4, 0};
    CHECK(schema::check_type(type_info{"nested", 12, 4, nested}, four).ok());
}

TEST_CASE("run-time declarations are misuse where typed ones are", "[schema][runtime]") {
    schema s;
    s.component<position>();
    REQUIRE_MISUSE(s.component(type_info_of<position>()), "position is already declared as a component");
    REQUIRE_MISUSE(s.resource(type_info_of<position>()), "position is already declared as a component");
    const std::uint32_t one[] = {0};
    REQUIRE_MISUSE(s.group(one), "at least two");
    const std::uint32_t far[] = {0, 7};
    REQUIRE_MISUSE(s.group(far), "component id 7");
    s.component<velocity>();
    const std::uint32_t twice[] = {1, 1};
    REQUIRE_MISUSE(s.group(twice), "velocity appears twice");
}
