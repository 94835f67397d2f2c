// Resources: singletons stored in the world's resource block.
#include "common/components.hpp"
#include "common/misuse.hpp"
#include "ecs/helpers.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

using namespace retcon;
using namespace retcon::test;

namespace {
bool all_zero(std::span<const std::byte> b) {
    return std::all_of(b.begin(), b.end(), [](std::byte x) { return x == std::byte{0}; });
}
} // namespace

TEST_CASE("a fresh world has no resources and a zero resource block", "[resource]") {
    const world w{standard_schema()};
    CHECK_FALSE(w.has_resource<rng_state>());
    CHECK_FALSE(w.has_resource<game_clock>());
    CHECK(w.resource_bytes().size() >= sizeof(rng_state) + sizeof(game_clock) + 2);
    CHECK(all_zero(w.resource_bytes()));
    const world none{schema{}};
    CHECK(none.resource_bytes().empty());
}

TEST_CASE("set_resource, resource, try_resource, has_resource", "[resource]") {
    world w{standard_schema()};
    CHECK(w.try_resource<game_clock>() == nullptr);
    game_clock &c = w.set_resource<game_clock>(10u, 60u);
    CHECK(c.frame == 10u);
    CHECK(w.has_resource<game_clock>());
    CHECK_FALSE(w.has_resource<rng_state>());
    CHECK(&w.resource<game_clock>() == &c);
    CHECK(w.try_resource<game_clock>() == &c);
    ++w.resource<game_clock>().frame;
    const world &cw = w;
    STATIC_REQUIRE(std::is_same_v<decltype(cw.resource<game_clock>()), const game_clock &>);
    CHECK(cw.resource<game_clock>().frame == 11u);
    CHECK(cw.has_resource<game_clock>());
    // Setting again overwrites.
    w.set_resource<game_clock>(1u, 30u);
    CHECK(w.resource<game_clock>().tick_hz == 30u);
    // Both resources are independent and aligned.
    rng_state &r = w.set_resource<rng_state>(std::uint64_t{0xDEADBEEFCAFEull});
    CHECK(reinterpret_cast<std::uintptr_t>(&r) % alignof(rng_state) == 0u);
    CHECK(w.resource<rng_state>().s == 0xDEADBEEFCAFEull);
    CHECK(w.resource<game_clock>().frame == 1u);
    // The value lives inside the resource block.
    const auto block = w.resource_bytes();
    const auto *p = reinterpret_cast<const std::byte *>(&r);
    CHECK(p >= block.data());
    CHECK(p + sizeof r <= block.data() + block.size());
}

TEST_CASE("set_resource may read the value it replaces", "[resource]") {
    world w{standard_schema()};
    const game_clock &c = w.set_resource<game_clock>(1u, 2u);
    w.set_resource<game_clock>(c.tick_hz, c.frame); // swap the two fields
    CHECK(w.resource<game_clock>().frame == 2u);
    CHECK(w.resource<game_clock>().tick_hz == 1u);
    w.set_resource<game_clock>(w.resource<game_clock>());
    CHECK(w.resource<game_clock>().frame == 2u);
}

TEST_CASE("remove_resource unsets it and zeroes its bytes", "[resource]") {
    world w{standard_schema()};
    w.set_resource<game_clock>(0xFFFFFFFFu, 0xFFFFFFFFu);
    w.set_resource<rng_state>(~std::uint64_t{0});
    CHECK_FALSE(all_zero(w.resource_bytes()));
    CHECK(w.remove_resource<game_clock>());
    CHECK_FALSE(w.has_resource<game_clock>());
    CHECK(w.try_resource<game_clock>() == nullptr);
    CHECK_FALSE(w.remove_resource<game_clock>());
    CHECK(w.has_resource<rng_state>());
    CHECK(w.remove_resource<rng_state>());
    CHECK(all_zero(w.resource_bytes()));
    // Same values set in two worlds give the same bytes, whatever happened before.
    world fresh{standard_schema()};
    fresh.set_resource<game_clock>(5u, 6u);
    w.set_resource<game_clock>(5u, 6u);
    const auto a = w.resource_bytes();
    const auto b = fresh.resource_bytes();
    CHECK(std::equal(a.begin(), a.end(), b.begin(), b.end()));
}

TEST_CASE("misuse: reading a resource that is not set", "[resource][misuse]") {
    world w{standard_schema()};
    w.set_resource<rng_state>(std::uint64_t{3});
    const auto before = capture(w);
    REQUIRE_MISUSE((void)w.resource<game_clock>(), "resource<game_clock>: not set");
    REQUIRE_MISUSE((void)std::as_const(w).resource<game_clock>(), "not set");
    w.set_resource<game_clock>(1u, 1u);
    w.remove_resource<game_clock>();
    REQUIRE_MISUSE((void)w.resource<game_clock>(), "not set");
    CHECK(capture(w) == before);
}

TEST_CASE("try_resource on a const world returns a pointer to const", "[resource]") {
    world w{standard_schema()};
    const world &cw = w;
    STATIC_REQUIRE(std::is_same_v<decltype(cw.try_resource<game_clock>()), const game_clock *>);
    STATIC_REQUIRE(std::is_same_v<decltype(w.try_resource<game_clock>()), game_clock *>);
    CHECK(cw.try_resource<game_clock>() == nullptr);
    const game_clock &c = w.set_resource<game_clock>(4u, 60u);
    CHECK(cw.try_resource<game_clock>() == &c);
    CHECK(cw.try_resource<game_clock>()->frame == 4u);
    CHECK(cw.try_resource<rng_state>() == nullptr);
    w.remove_resource<game_clock>();
    CHECK(cw.try_resource<game_clock>() == nullptr);
}
