// inline_vector<T, N>: the component-safe vector. Slots past size() stay zero; overflow and
// out-of-range access are misuse and change nothing.
#include "common/misuse.hpp"

#include <retcon/ecs/inline_vector.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

using retcon::inline_vector;

namespace {
template<class T, std::size_t N>
bool tail_is_zero(const inline_vector<T, N> &v) {
    for (std::size_t i = v.size(); i < N; ++i)
        if (!(v.items[i] == T{})) return false;
    return true;
}
template<class T, std::size_t N>
std::vector<T> contents(const inline_vector<T, N> &v) {
    return {v.begin(), v.end()};
}
} // namespace

TEST_CASE("inline_vector layout has no padding", "[inline_vector]") {
    STATIC_REQUIRE(std::is_trivially_copyable_v<inline_vector<std::uint16_t, 7>>);
    STATIC_REQUIRE(std::is_standard_layout_v<inline_vector<std::uint16_t, 7>>);
    STATIC_REQUIRE(sizeof(inline_vector<std::uint16_t, 7>) == 16);
    STATIC_REQUIRE(sizeof(inline_vector<std::uint8_t, 3>) == 4);
    STATIC_REQUIRE(sizeof(inline_vector<std::uint32_t, 3>) == 16);
    STATIC_REQUIRE(sizeof(inline_vector<std::uint8_t, 300>) == 302); // count needs two bytes
    STATIC_REQUIRE(sizeof(inline_vector<std::uint64_t, 1>) == 16);
    STATIC_REQUIRE(
        retcon::internal::fields_tile(retcon_describe(retcon::internal::type_tag<inline_vector<std::uint8_t, 300>>{})));
    STATIC_REQUIRE(inline_vector<std::uint8_t, 300>::capacity() == 300);
}

TEST_CASE("inline_vector push_back, pop_back, index, iterate", "[inline_vector]") {
    inline_vector<std::uint16_t, 4> v;
    CHECK(v.empty());
    CHECK_FALSE(v.full());
    v.push_back(10);
    v.push_back(20);
    CHECK(v.size() == 2);
    CHECK(v[0] == 10);
    CHECK(v[1] == 20);
    v[1] = 25;
    CHECK(contents(v) == std::vector<std::uint16_t>{10, 25});
    CHECK(v.try_push_back(30));
    CHECK(v.try_push_back(40));
    CHECK(v.full());
    CHECK_FALSE(v.try_push_back(50));
    CHECK(contents(v) == std::vector<std::uint16_t>{10, 25, 30, 40});
    v.pop_back();
    CHECK(contents(v) == std::vector<std::uint16_t>{10, 25, 30});
    CHECK(tail_is_zero(v));
    const auto &cv = v;
    CHECK(cv[2] == 30);
}

TEST_CASE("inline_vector swap_erase and clear keep unused slots zero", "[inline_vector]") {
    inline_vector<std::uint32_t, 5> v;
    for (std::uint32_t i = 1; i <= 5; ++i) v.push_back(i * 11u);
    v.swap_erase(1); // last moves into slot 1
    CHECK(contents(v) == std::vector<std::uint32_t>{11, 55, 33, 44});
    CHECK(tail_is_zero(v));
    v.swap_erase(3); // erasing the last element
    CHECK(contents(v) == std::vector<std::uint32_t>{11, 55, 33});
    CHECK(tail_is_zero(v));
    v.clear();
    CHECK(v.empty());
    CHECK(tail_is_zero(v));
    // Equal contents, equal bytes, whatever the history.
    inline_vector<std::uint32_t, 5> a;
    inline_vector<std::uint32_t, 5> b;
    for (std::uint32_t i = 0; i < 5; ++i) a.push_back(i + 100u);
    a.swap_erase(0);
    a.swap_erase(0);
    a.pop_back();
    b.push_back(103);
    b.push_back(101);
    CHECK(a == b);
    CHECK(std::memcmp(&a, &b, sizeof a) == 0);
    b.push_back(1);
    CHECK_FALSE(a == b);
}

TEST_CASE("misuse: inline_vector overflow and out-of-range access", "[inline_vector][misuse]") {
    inline_vector<std::uint16_t, 2> v;
    v.push_back(1);
    v.push_back(2);
    const auto before = v;
    REQUIRE_MISUSE(v.push_back(3), "full");
    CHECK(std::memcmp(&v, &before, sizeof v) == 0);
    REQUIRE_MISUSE((void)v[2], "out of range");
    REQUIRE_MISUSE((void)std::as_const(v)[5], "out of range");
    REQUIRE_MISUSE(v.swap_erase(2), "out of range");
    CHECK(std::memcmp(&v, &before, sizeof v) == 0);
    v.clear();
    REQUIRE_MISUSE(v.pop_back(), "empty");
    CHECK(v.empty());
    REQUIRE_MISUSE((void)v[0], "out of range");
}
