// World hashes: agreement between world and image, sensitivity to every state byte, and the
// per-section hashes that name the diverging pool.
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/image.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "common/components.hpp"
#include "common/world_gen.hpp"

using namespace retcon;
using namespace retcon::test;

namespace {
void check_same_sections(const world_hashes &a, const world_hashes &b) {
    CHECK(a.world == b.world);
    CHECK(a.entities == b.entities);
    CHECK(a.pools == b.pools);
    CHECK(a.groups == b.groups);
    CHECK(a.resources == b.resources);
}
} // namespace

TEST_CASE("a world and its image hash the same", "[snapshot][hash]") {
    const schema schemas[] = {standard_schema(), grouped_schema()};
    for (const schema &s : schemas) {
        for (std::uint64_t seed = 1; seed <= 5; ++seed) {
            CAPTURE(seed);
            const world w = make_random_world(s, seed, 50);
            const world_image snap = save(w);
            CHECK(hash(w) == hash(snap));
            const world_hashes from_world = section_hashes(w);
            const world_hashes from_image = section_hashes(snap);
            check_same_sections(from_world, from_image);
            CHECK(from_world.world == hash(w));
            CHECK(from_world.pools.size() == w.pool_count());
            world_hashes reused;
            section_hashes(w, reused);
            section_hashes(w, reused); // the out-parameter form overwrites, not appends
            check_same_sections(reused, from_world);
            CHECK(from_world.diverging(from_image, s).empty());
        }
    }
}

TEST_CASE("an empty world hashes consistently", "[snapshot][hash]") {
    const world a{standard_schema()};
    const world b{standard_schema()};
    CHECK(hash(a) == hash(b));
    CHECK(hash(a) == hash(save(a)));
    const world g{grouped_schema()};
    CHECK(hash(g) != hash(a)); // one more section (the group length)
}

TEST_CASE("worlds built by the same operations hash equal, different ones do not", "[snapshot][hash]") {
    const schema s = grouped_schema();
    for (std::uint64_t seed = 20; seed < 25; ++seed) {
        const world a = make_random_world(s, seed, 40);
        const world b = make_random_world(s, seed, 40);
        const world c = make_random_world(s, seed + 100, 40);
        CHECK(hash(a) == hash(b));
        CHECK(capture(a) == capture(b));
        CHECK(hash(a) != hash(c));
    }
}

TEST_CASE("the frame number does not enter the hash", "[snapshot][hash]") {
    const world w = make_random_world(standard_schema(), 4, 30);
    const world_image at1 = save(w, 1);
    const world_image at999 = save(w, 999999);
    CHECK(at1.frame() != at999.frame());
    CHECK(hash(at1) == hash(at999));
    CHECK(hash(at1) == hash(w));
}

TEST_CASE("any single component byte change changes the hash and names exactly that pool", "[snapshot][hash]") {
    const schema s = standard_schema();
    gen_options no_clear;
    no_clear.clear_percent_x10 = 0;
    const world w = make_random_world(s, 31, 20, no_clear);
    const world_image snap = save(w);
    const hash64 original = hash(w);
    const world_hashes original_sections = section_hashes(w);
    auto v = parse_image(snap.bytes());
    REQUIRE(v.ok());
    world changed{s};
    std::size_t bytes_checked = 0;
    for (std::size_t id = 0; id < v->payloads.size(); ++id) {
        const auto payload = v->payloads[id];
        const std::size_t base = static_cast<std::size_t>(payload.data() - snap.bytes().data());
        for (std::size_t b = 0; b < payload.size(); ++b) {
            CAPTURE(id, b);
            world_image flipped = snap;
            flipped.prepare(flipped.size())[base + b] ^= std::byte{static_cast<std::uint8_t>(1u << (b % 8u))};
            REQUIRE(restore(changed, flipped).ok()); // the trusted path: payload bytes are opaque to it
            const hash64 h = hash(changed);
            CHECK(h != original);
            CHECK(h == hash(flipped));
            const auto names = section_hashes(changed).diverging(original_sections, s);
            REQUIRE(names.size() == 1);
            CHECK(names[0] == s.components()[id].name);
            ++bytes_checked;
        }
    }
    CHECK(bytes_checked > 100);
}

TEST_CASE("diverging names entities, pools and resources", "[snapshot][hash]") {
    const schema s = standard_schema();
    world a = make_random_world(s, 40, 40);
    world b = make_random_world(s, 40, 40);
    const world_hashes base = section_hashes(a);
    REQUIRE(section_hashes(b).diverging(base, s).empty());

    SECTION("a typed write to one field") {
        entity victim = null_entity;
        b.view<health>().each([&victim](entity e, health &) { victim = e; });
        REQUIRE(victim != null_entity);
        b.get<health>(victim).armor = static_cast<std::uint16_t>(b.get<health>(victim).armor + 1u);
        CHECK(section_hashes(b).diverging(base, s) == std::vector<std::string>{"health"});
    }
    SECTION("a created entity without components") {
        (void)b.create();
        CHECK(section_hashes(b).diverging(base, s) == std::vector<std::string>{"entities"});
    }
    SECTION("a resource") {
        b.set_resource<game_clock>(12345u, 30u);
        CHECK(section_hashes(b).diverging(base, s) == std::vector<std::string>{"resources"});
    }
    SECTION("pool order only") {
        REQUIRE(b.size<health>() > 2);
        b.sort<health>([](entity x, entity y) { return to_integral(x) < to_integral(y); });
        a.sort<health>([](entity x, entity y) { return to_integral(x) > to_integral(y); });
        CHECK(section_hashes(b).diverging(section_hashes(a), s) == std::vector<std::string>{"health"});
        CHECK(hash(a) != hash(b));
    }
    SECTION("a tag") {
        rng pick{3};
        const entity someone = pick_live(b, pick);
        REQUIRE(someone != null_entity);
        if (b.all_of<marked>(someone)) b.remove<marked>(someone);
        else
            b.emplace<marked>(someone);
        CHECK(section_hashes(b).diverging(base, s) == std::vector<std::string>{"marked"});
    }
}

TEST_CASE("section_hashes of a malformed image is all zero", "[snapshot][hash][hostile]") {
    world_image junk;
    std::memset(junk.prepare(128), 0x33, 128);
    const world_hashes h = section_hashes(junk);
    CHECK(h.world == 0);
    CHECK(h.entities == 0);
    CHECK(h.pools.empty());
    CHECK(hash(junk) == 0);
    CHECK(hash(world_image{}) == 0);
    CHECK(hash(junk) != hash(world{standard_schema()}));
}

TEST_CASE("xxh3 is a function of the bytes only", "[snapshot][hash]") {
    std::vector<std::byte> a(1000);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::byte{static_cast<std::uint8_t>(i * 7u)};
    std::vector<std::byte> b = a;
    CHECK(xxh3(a) == xxh3(b));
    b[999] ^= std::byte{1};
    CHECK(xxh3(a) != xxh3(b));
    CHECK(xxh3(std::span<const std::byte>(a).first(999)) == xxh3(std::span<const std::byte>(b).first(999)));
    CHECK(xxh3({}) == xxh3(std::span<const std::byte>(a).first(0)));
    // Any length, any alignment: the same bytes at another address hash the same.
    std::vector<std::byte> shifted(a.size() + 3);
    std::memcpy(shifted.data() + 3, a.data(), a.size());
    CHECK(xxh3(std::span<const std::byte>(shifted).subspan(3)) == xxh3(a));
}
