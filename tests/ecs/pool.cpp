// pool: a sparse set of owners plus the payload array in the same order.
#include "common/components.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace pool_test {
struct big {
    std::uint32_t v[100]; // 400 bytes: larger than the swap buffer, so swaps go in chunks
};
RETCON_COMPONENT(big, v);

struct wide {
    alignas(64) std::uint64_t a;
    std::uint64_t rest[7];
};
RETCON_COMPONENT(wide, a, rest);
} // namespace pool_test

using namespace pool_test;

namespace {
entity ent(std::uint32_t index, std::uint32_t version = 0) { return entity_traits::construct(index, version); }

/// Every owner's payload equals what `value_of(owner)` says it should be.
template<class T, class F>
void check_payload(const pool &p, F value_of) {
    REQUIRE(p.payload_bytes() == std::size_t{p.size()} * sizeof(T));
    for (pool::size_type i = 0; i < p.size(); ++i) {
        const T expected = value_of(p.owners().at(i));
        // Bit for bit on purpose (floats included). NOLINTNEXTLINE(bugprone-suspicious-memory-comparison)
        REQUIRE(std::memcmp(&p.data_as<T>()[i], &expected, sizeof(T)) == 0);
        REQUIRE(p.index(p.owners().at(i)) == i);
    }
}
position pos_of(entity e) { return {float(to_index(e)), float(to_index(e)) * 2.f}; }
} // namespace

TEST_CASE("pool emplace_back, lookup and payload", "[pool]") {
    pool p{type_info_of<position>()};
    CHECK(p.empty());
    CHECK(p.element_size() == sizeof(position));
    CHECK(p.info().name == "position");
    for (std::uint32_t i = 0; i < 100; ++i) CHECK(p.emplace_back<position>(ent(i * 3u), pos_of(ent(i * 3u))) == i);
    CHECK(p.size() == 100u);
    CHECK(p.contains(ent(30)));
    CHECK_FALSE(p.contains(ent(31)));
    CHECK_FALSE(p.contains(ent(30, 1)));
    check_payload<position>(p, pos_of);
}

TEST_CASE("pool erase_at keeps every payload with its owner", "[pool]") {
    pool p{type_info_of<position>()};
    for (std::uint32_t i = 0; i < 50; ++i) p.emplace_back<position>(ent(i), pos_of(ent(i)));
    // Erase from the middle, the front and the back in turn.
    for (pool::size_type pos : {10u, 0u, 47u, 20u, 5u}) {
        const entity gone = p.owners().at(pos);
        p.erase_at(pos);
        CHECK_FALSE(p.contains(gone));
        check_payload<position>(p, pos_of);
    }
    CHECK(p.size() == 45u);
    while (!p.empty()) p.erase_at(0);
    CHECK(p.payload_bytes() == 0u);
}

TEST_CASE("pool swap_at exchanges owners and payloads, also for large types", "[pool]") {
    pool p{type_info_of<big>()};
    auto big_of = [](entity e) {
        big b{};
        for (std::uint32_t k = 0; k < 100; ++k) b.v[k] = to_index(e) * 1000u + k;
        return b;
    };
    for (std::uint32_t i = 0; i < 8; ++i) p.emplace_back<big>(ent(i), big_of(ent(i)));
    p.swap_at(1, 6);
    CHECK(p.owners().at(1) == ent(6));
    CHECK(p.owners().at(6) == ent(1));
    check_payload<big>(p, big_of);
    p.swap_at(3, 3);
    check_payload<big>(p, big_of);
    p.erase_at(0);
    check_payload<big>(p, big_of);
}

TEST_CASE("pool push_bytes and assign", "[pool]") {
    pool p{type_info_of<health>()};
    const health h{-5, 7, 1, 0};
    p.push_bytes(ent(3), &h);
    CHECK(p.data_as<health>()[0].hp == -5);

    const std::vector<entity> owners{ent(9, 1), ent(2), ent(40000)};
    std::vector<health> values{{1, 1, 1, 0}, {2, 2, 2, 0}, {3, 3, 3, 0}};
    p.assign(owners.data(), reinterpret_cast<const std::byte *>(values.data()), 3);
    CHECK(p.size() == 3u);
    CHECK_FALSE(p.contains(ent(3)));
    CHECK(p.index(ent(40000)) == 2u);
    CHECK(std::memcmp(p.payload(), values.data(), 3 * sizeof(health)) == 0);
    p.assign(owners.data(), nullptr, 0);
    CHECK(p.empty());
    CHECK(p.payload_bytes() == 0u);
}

TEST_CASE("byte_buffer assign allocates what it copies and zero-fills only the rest", "[pool]") {
    std::vector<std::byte> src(1000);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::byte>(i * 7u + 1u);
    internal::byte_buffer b{64};
    b.assign(src.data(), 1000);
    CHECK(b.size() == 1000u);
    CHECK(b.capacity() == 1024u); // exact, rounded up to 64 bytes (doubling from 64 would reserve 1024 too)
    CHECK(std::memcmp(b.data(), src.data(), 1000) == 0);
    for (std::size_t i = 1000; i < b.capacity(); ++i) REQUIRE(b.data()[i] == std::byte{0});

    internal::byte_buffer c{64};
    c.assign(src.data(), 520); // doubling from 64 would reserve 1024
    CHECK(c.capacity() == 576u);
    for (std::size_t i = 520; i < c.capacity(); ++i) REQUIRE(c.data()[i] == std::byte{0});
    const std::byte *before = c.data();
    c.assign(src.data() + 1, 300); // fits: no new allocation, new contents
    CHECK(c.data() == before);
    CHECK(c.size() == 300u);
    CHECK(std::memcmp(c.data(), src.data() + 1, 300) == 0);
    c.assign(src.data(), 600); // a buffer in use still at least doubles
    CHECK(c.capacity() == 1152u);
    CHECK(std::memcmp(c.data(), src.data(), 600) == 0);
    for (std::size_t i = 600; i < c.capacity(); ++i) REQUIRE(c.data()[i] == std::byte{0});
    c.assign(nullptr, 0);
    CHECK(c.size() == 0u);
}

TEST_CASE("tag pools keep no payload", "[pool]") {
    pool p{type_info_of<frozen>()};
    CHECK(p.element_size() == 0u);
    p.emplace_back<frozen>(ent(1));
    p.emplace_back<frozen>(ent(2));
    p.push_bytes(ent(3), nullptr);
    CHECK(p.size() == 3u);
    CHECK(p.payload_bytes() == 0u);
    p.swap_at(0, 2);
    CHECK(p.owners().at(0) == ent(3));
    p.erase_at(1);
    CHECK(p.size() == 2u);
    CHECK(p.payload_bytes() == 0u);
}

TEST_CASE("pool payload honours over-aligned types", "[pool]") {
    pool p{type_info_of<wide>()};
    for (std::uint32_t i = 0; i < 40; ++i) {
        p.emplace_back<wide>(ent(i), wide{i, {}});
        REQUIRE(reinterpret_cast<std::uintptr_t>(p.payload()) % 64u == 0u);
    }
    for (std::uint32_t i = 0; i < 40; ++i) CHECK(p.data_as<wide>()[i].a == i);
}

TEST_CASE("pool emplace_back from one of its own elements while growing", "[pool]") {
    // The argument refers into the payload that the append reallocates.
    pool p{type_info_of<position>()};
    p.emplace_back<position>(ent(0), 1.5f, -2.5f);
    for (std::uint32_t i = 1; i < 200; ++i) {
        const position &first = p.data_as<position>()[0];
        p.emplace_back<position>(ent(i), first);
        REQUIRE(p.data_as<position>()[i].x == 1.5f);
        REQUIRE(p.data_as<position>()[i].y == -2.5f);
    }
}

TEST_CASE("pool reserve and a moved-from pool", "[pool]") {
    pool p{type_info_of<position>()};
    p.reserve(1000);
    CHECK(p.empty());
    p.emplace_back<position>(ent(1), 1.f, 2.f);
    pool q{std::move(p)};
    CHECK(q.size() == 1u);
    CHECK(q.data_as<position>()[0].y == 2.f);
    CHECK(q.contains(ent(1)));
}
