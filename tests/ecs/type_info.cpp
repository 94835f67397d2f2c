// Field registration: names, offsets, sizes, counts and kinds recorded by RETCON_COMPONENT.
#include "common/components.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>

using namespace retcon;
using namespace retcon::test;

namespace type_info_test {

enum class color : std::uint16_t { red, green };

struct inner {
    std::int16_t a;
    std::uint16_t b;
};
RETCON_COMPONENT(inner, a, b);

struct everything {
    double d;
    std::int64_t i64;
    std::uint64_t u64;
    entity who; // 8-aligned here, so both handle widths tile (bytes pads the 64-bit layout)
    float f;
    std::int32_t i32;
    std::uint32_t u32;
    inner nested;
    std::array<std::uint16_t, 3> triple;
    color c;
    std::int16_t i16;
    std::uint16_t u16;
    std::int8_t i8;
    std::uint8_t u8;
    bool flag;
    std::uint8_t bytes[RETCON_ENTITY_64 ? 9 : 5];
    fixed_string<8> label;
};
// Fields listed out of declaration order on purpose: registration accepts any order.
RETCON_COMPONENT(everything, u64, d, i64, f, i32, u32, who, nested, triple, c, i16, u16, i8, u8, flag, bytes, label);

struct with_chars {
    char code[4];
    signed char s;
    unsigned char u;
    char c;
    std::uint8_t pad;
};
RETCON_COMPONENT(with_chars, code, s, u, c, pad);

struct unregistered {
    int x;
};

} // namespace type_info_test

using namespace type_info_test;

namespace {
const field_info &field_named(const type_info &t, std::string_view name) {
    for (const auto &f : t.fields)
        if (f.name == name) return f;
    FAIL("no field " << name);
    return t.fields[0];
}
} // namespace

TEST_CASE("type_info of the test components", "[type_info]") {
    const type_info pos = type_info_of<position>();
    CHECK(pos.name == "position");
    CHECK(pos.size == sizeof(position));
    CHECK(pos.align == alignof(position));
    CHECK_FALSE(pos.is_tag());
    REQUIRE(pos.fields.size() == 2);
    CHECK(pos.fields[0].name == "x");
    CHECK(pos.fields[0].offset == offsetof(position, x));
    CHECK(pos.fields[0].size == sizeof(float));
    CHECK(pos.fields[0].count == 1);
    CHECK(pos.fields[0].kind == field_kind::f32);
    CHECK(pos.fields[1].name == "y");
    CHECK(pos.fields[1].offset == offsetof(position, y));

    const type_info h = type_info_of<health>();
    REQUIRE(h.fields.size() == 4);
    CHECK(field_named(h, "hp").kind == field_kind::i32);
    CHECK(field_named(h, "armor").kind == field_kind::u16);
    CHECK(field_named(h, "armor").offset == offsetof(health, armor));
    CHECK(field_named(h, "team").kind == field_kind::u8);
    CHECK(field_named(h, "pad").offset == offsetof(health, pad));

    const type_info n = type_info_of<name_tag>();
    REQUIRE(n.fields.size() == 1);
    CHECK(n.fields[0].kind == field_kind::text);
    CHECK(n.fields[0].size == 16u);

    const type_info t = type_info_of<target>();
    REQUIRE(t.fields.size() == 1);
    CHECK(t.fields[0].kind == field_kind::entity);
    CHECK(t.fields[0].size == sizeof(entity));

    const type_info inv = type_info_of<inventory>();
    REQUIRE(inv.fields.size() == 1);
    CHECK(inv.fields[0].size == sizeof(inline_vector<std::uint16_t, 7>));
    // inline_vector has its own registration, so it is a nested record with a field table.
    CHECK(inv.fields[0].kind == field_kind::record);

    const type_info clock = type_info_of<game_clock>();
    CHECK(clock.name == "game_clock");
    CHECK(clock.size == 8u);
}

TEST_CASE("tags have no payload", "[type_info]") {
    STATIC_REQUIRE(is_tag_v<frozen>);
    STATIC_REQUIRE(is_tag_v<const marked>);
    STATIC_REQUIRE_FALSE(is_tag_v<position>);
    const type_info f = type_info_of<frozen>();
    CHECK(f.is_tag());
    CHECK(f.size == 0u);
    CHECK(f.fields.empty());
    CHECK(f.name == "frozen");
}

TEST_CASE("is_registered_v", "[type_info]") {
    STATIC_REQUIRE(is_registered_v<position>);
    STATIC_REQUIRE(is_registered_v<const position>);
    STATIC_REQUIRE(is_registered_v<frozen>);
    STATIC_REQUIRE(is_registered_v<fixed_string<4>>);
    STATIC_REQUIRE(is_registered_v<inline_vector<std::uint32_t, 3>>);
    STATIC_REQUIRE_FALSE(is_registered_v<unregistered>);
    STATIC_REQUIRE_FALSE(is_registered_v<int>);
}

TEST_CASE("every field kind, arrays, enums and nested records", "[type_info]") {
    const type_info t = type_info_of<everything>();
    CHECK(t.size == sizeof(everything));
    CHECK(t.align == alignof(everything));
    REQUIRE(t.fields.size() == 17);
    // Registration order is kept (it is what the schema hashes), whatever the layout order.
    CHECK(t.fields[0].name == "u64");
    CHECK(t.fields[1].name == "d");

    CHECK(field_named(t, "d").kind == field_kind::f64);
    CHECK(field_named(t, "i64").kind == field_kind::i64);
    CHECK(field_named(t, "u64").kind == field_kind::u64);
    CHECK(field_named(t, "f").kind == field_kind::f32);
    CHECK(field_named(t, "i32").kind == field_kind::i32);
    CHECK(field_named(t, "u32").kind == field_kind::u32);
    CHECK(field_named(t, "who").kind == field_kind::entity);
    CHECK(field_named(t, "nested").kind == field_kind::record);
    CHECK(field_named(t, "nested").size == sizeof(inner));
    CHECK(field_named(t, "c").kind == field_kind::u16); // enums read as their underlying type
    CHECK(field_named(t, "i16").kind == field_kind::i16);
    CHECK(field_named(t, "u16").kind == field_kind::u16);
    CHECK(field_named(t, "i8").kind == field_kind::i8);
    CHECK(field_named(t, "u8").kind == field_kind::u8);
    CHECK(field_named(t, "flag").kind == field_kind::boolean);
    CHECK(field_named(t, "label").kind == field_kind::text);
    CHECK(field_named(t, "label").size == 8u);

    const auto &triple = field_named(t, "triple");
    CHECK(triple.kind == field_kind::u16);
    CHECK(triple.count == 3u);
    CHECK(triple.size == 6u);
    CHECK(triple.offset == offsetof(everything, triple));
    const auto &bytes = field_named(t, "bytes");
    CHECK(bytes.count == sizeof(everything::bytes));
    CHECK(bytes.size == (RETCON_ENTITY_64 ? 9u : 5u));
    CHECK(bytes.kind == field_kind::u8);

    // The fields tile the type: sorted by offset they are contiguous and end at sizeof.
    std::array<std::pair<std::uint32_t, std::uint32_t>, 17> spans{};
    for (std::size_t i = 0; i < spans.size(); ++i) spans[i] = {t.fields[i].offset, t.fields[i].size};
    std::sort(spans.begin(), spans.end());
    std::uint32_t end = 0;
    for (const auto &[offset, size] : spans) {
        CHECK(offset == end);
        end = offset + size;
    }
    CHECK(end == sizeof(everything));
}

TEST_CASE("plain char is text on every platform", "[type_info]") {
    // char is signed on x86 and unsigned on ARM: mapping it to i8/u8 would give the same
    // program different schema hashes on a server and a client of the other architecture.
    const type_info t = type_info_of<with_chars>();
    CHECK(field_named(t, "code").kind == field_kind::text);
    CHECK(field_named(t, "code").count == 4u);
    CHECK(field_named(t, "c").kind == field_kind::text);
    CHECK(field_named(t, "s").kind == field_kind::i8);
    CHECK(field_named(t, "u").kind == field_kind::u8);
    CHECK(type_info_of<fixed_string<12>>().fields[0].kind == field_kind::text);
}

TEST_CASE("nested registrations describe fixed_string and inline_vector", "[type_info]") {
    const type_info fs = type_info_of<fixed_string<12>>();
    REQUIRE(fs.fields.size() == 1);
    CHECK(fs.fields[0].count == 12u);
    CHECK(fs.size == 12u);

    const type_info iv = type_info_of<inline_vector<std::uint32_t, 3>>();
    REQUIRE(iv.fields.size() == 2);
    CHECK(iv.fields[0].name == "count");
    CHECK(iv.fields[0].offset == 0u);
    CHECK(iv.fields[1].name == "items");
    CHECK(iv.fields[1].offset == iv.fields[0].size);
    CHECK(iv.fields[1].count == 3u);
    CHECK(iv.fields[0].size + iv.fields[1].size == iv.size);
}

TEST_CASE("fields_tile detects gaps and overlaps", "[type_info]") {
    struct two {
        std::uint32_t a, b;
    };
    static constexpr auto ok = internal::describe<two>("two", internal::make_field<std::uint32_t>("a", 0),
                                                       internal::make_field<std::uint32_t>("b", 4));
    static constexpr auto gap = internal::describe<two>("two", internal::make_field<std::uint32_t>("a", 0));
    static constexpr auto overlap = internal::describe<two>("two", internal::make_field<std::uint32_t>("a", 0),
                                                            internal::make_field<std::uint32_t>("b", 0));
    static constexpr auto swapped = internal::describe<two>("two", internal::make_field<std::uint32_t>("b", 4),
                                                            internal::make_field<std::uint32_t>("a", 0));
    STATIC_REQUIRE(internal::fields_tile(ok));
    STATIC_REQUIRE_FALSE(internal::fields_tile(gap));
    STATIC_REQUIRE_FALSE(internal::fields_tile(overlap));
    STATIC_REQUIRE(internal::fields_tile(swapped));
}

namespace canonical {
struct wide {
    std::uint32_t a;
    std::uint32_t pad;
    std::uint64_t b;
};
struct outer {
    wide w;
    std::uint16_t c;
    std::uint16_t pad[3];
};
enum class big : std::uint64_t { x };
struct with_enum {
    big e;
};
struct narrow {
    std::uint16_t a;
    std::uint8_t b[2];
};
struct handle {
    entity e;
};
RETCON_COMPONENT(wide, a, pad, b);
RETCON_COMPONENT(outer, w, c, pad);
RETCON_COMPONENT(with_enum, e);
RETCON_COMPONENT(narrow, a, b);
RETCON_COMPONENT(handle, e);
} // namespace canonical

TEST_CASE("alignment comes from the field kinds, not the ABI's alignof", "[type_info]") {
    // On i686 alignof(wide) is 4; the schema must say 8 there too (docs/determinism.md).
    STATIC_REQUIRE(type_info_of<canonical::wide>().align == 8u);
    STATIC_REQUIRE(type_info_of<canonical::outer>().align == 8u); // a record takes its widest field's
    STATIC_REQUIRE(type_info_of<canonical::with_enum>().align == 8u);
    STATIC_REQUIRE(type_info_of<canonical::narrow>().align == 2u);
    STATIC_REQUIRE(type_info_of<fixed_string<5>>().align == 1u);
    STATIC_REQUIRE(type_info_of<canonical::handle>().align == sizeof(entity)); // 4, or 8 (RETCON_ENTITY_64)
    // inline_vector's count is as wide as the canonical alignment of its element.
    STATIC_REQUIRE(sizeof(inline_vector<canonical::wide, 2>::size_type) == 8u);
    STATIC_REQUIRE(type_info_of<inline_vector<canonical::wide, 2>>().align == 8u);
    STATIC_REQUIRE(sizeof(inline_vector<std::uint16_t, 3>::size_type) == 2u);
}

TEST_CASE("a field off its canonical alignment is refused, as i686 would lay it out", "[type_info]") {
    // What `struct { uint32_t a; uint64_t b; }` looks like on i686: b at offset 4, size 12.
    struct i686_like {
        std::uint32_t a, b_lo, b_hi;
    };
    static constexpr auto misplaced = internal::describe<i686_like>(
        "i686_like", internal::make_field<std::uint32_t>("a", 0), internal::make_field<std::uint64_t>("b", 4));
    STATIC_REQUIRE(misplaced.align == 8u);
    STATIC_REQUIRE_FALSE(internal::fields_canonically_aligned(misplaced));
    // The same fields at canonical offsets pass.
    struct padded_like {
        std::uint32_t a, pad;
        std::uint64_t b;
    };
    static constexpr auto placed = internal::describe<padded_like>(
        "padded_like", internal::make_field<std::uint32_t>("a", 0), internal::make_field<std::uint32_t>("pad", 4),
        internal::make_field<std::uint64_t>("b", 8));
    STATIC_REQUIRE(internal::fields_canonically_aligned(placed));
}

TEST_CASE("platform-sized integer types are recognised", "[type_info]") {
    STATIC_REQUIRE(internal::platform_sized_v<wchar_t>);
    STATIC_REQUIRE(internal::platform_sized_v<long> == !std::is_same_v<long, std::int64_t>);
    STATIC_REQUIRE_FALSE(internal::platform_sized_v<std::int64_t>);
    STATIC_REQUIRE_FALSE(internal::platform_sized_v<std::uint32_t>);
    STATIC_REQUIRE_FALSE(internal::platform_sized_v<long long>);
    STATIC_REQUIRE_FALSE(internal::platform_sized_v<char32_t>);
    // An enum is as wide as its underlying type.
    enum class wide_char : wchar_t { a };
    enum class narrow : std::uint8_t { a };
    STATIC_REQUIRE(internal::platform_sized_v<wide_char>);
    STATIC_REQUIRE_FALSE(internal::platform_sized_v<narrow>);
}
