// fixed_string<N>: the component-safe string. Unused bytes stay zero; overflow is misuse.
#include "common/misuse.hpp"

#include <retcon/ecs/fixed_string.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

using retcon::fixed_string;

namespace {
template<std::size_t N>
bool tail_is_zero(const fixed_string<N> &s) {
    for (std::size_t i = s.size(); i < N; ++i)
        if (s.chars[i] != '\0') return false;
    return true;
}
} // namespace

TEST_CASE("fixed_string is a plain, padding-free value type", "[fixed_string]") {
    STATIC_REQUIRE(std::is_trivially_copyable_v<fixed_string<5>>);
    STATIC_REQUIRE(std::is_standard_layout_v<fixed_string<5>>);
    STATIC_REQUIRE(sizeof(fixed_string<5>) == 5);
    STATIC_REQUIRE(sizeof(fixed_string<16>) == 16);
    STATIC_REQUIRE(fixed_string<7>::capacity() == 7);
}

TEST_CASE("fixed_string construction, size, view, comparison", "[fixed_string]") {
    const fixed_string<8> empty;
    CHECK(empty.empty());
    CHECK(empty.size() == 0);
    CHECK(empty.view().empty());
    CHECK(tail_is_zero(empty));

    const fixed_string<8> hi{"hi"};
    CHECK_FALSE(hi.empty());
    CHECK(hi.size() == 2);
    CHECK(hi.view() == "hi");
    CHECK(std::string_view{hi} == "hi");
    CHECK(hi == std::string_view{"hi"});
    CHECK(tail_is_zero(hi));

    const fixed_string<8> full{"12345678"}; // exactly N characters: no terminator stored
    CHECK(full.size() == 8);
    CHECK(full.view() == "12345678");

    CHECK(fixed_string<8>{"abc"} == fixed_string<8>{"abc"});
    CHECK_FALSE(fixed_string<8>{"abc"} == fixed_string<8>{"abd"});
    CHECK_FALSE(fixed_string<8>{"abc"} == fixed_string<8>{"ab"});
}

TEST_CASE("fixed_string reassignment clears the old characters", "[fixed_string]") {
    fixed_string<8> s{"longtext"};
    s.assign("ab");
    CHECK(s.view() == "ab");
    CHECK(tail_is_zero(s));
    // Equal strings are equal byte for byte, whatever they held before.
    const fixed_string<8> fresh{"ab"};
    CHECK(std::memcmp(&s, &fresh, sizeof s) == 0);
    s.assign("");
    CHECK(s.empty());
    CHECK(tail_is_zero(s));
}

TEST_CASE("fixed_string try_assign refuses text that does not fit", "[fixed_string]") {
    fixed_string<4> s{"abc"};
    CHECK(s.try_assign("abcd"));
    CHECK(s.view() == "abcd");
    CHECK_FALSE(s.try_assign("abcde"));
    CHECK(s.view() == "abcd");
}

TEST_CASE("fixed_string refuses embedded NUL characters", "[fixed_string]") {
    // Accepting "a\0b" would leave a non-zero byte after the end: equal strings, different bytes.
    fixed_string<8> s{"a"};
    CHECK_FALSE(s.try_assign(std::string_view{"a\0b", 3}));
    CHECK(s.view() == "a");
    CHECK(tail_is_zero(s));
    REQUIRE_MISUSE(s.assign(std::string_view{"x\0", 2}), "NUL");
    const fixed_string<8> a{"a"};
    CHECK(std::memcmp(&s, &a, sizeof s) == 0);
}

TEST_CASE("misuse: fixed_string text too long", "[fixed_string][misuse]") {
    fixed_string<4> s{"ok"};
    REQUIRE_MISUSE(s.assign("too long"), "does not fit");
    CHECK(s.view() == "ok");
    CHECK(tail_is_zero(s));
    REQUIRE_MISUSE((fixed_string<3>{"four"}), "fixed_string<3>");
}

TEST_CASE("fixed_string is usable in constant expressions", "[fixed_string]") {
    constexpr fixed_string<6> s{"const"};
    STATIC_REQUIRE(s.size() == 5);
    STATIC_REQUIRE(s.view() == "const");
}
