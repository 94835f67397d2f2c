// The byte-plane keyframe codec (snapshot/src/keyframe_planes.hpp): encode then decode gives the
// image back for worlds of every shape; owners are stored without the versions the entity table
// already holds; a payload encode could not have written is refused.
#include <retcon/ecs/entity.hpp>
#include <retcon/snapshot/image.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "common/components.hpp"
#include "common/world_gen.hpp"
#include "keyframe_planes.hpp"
#include "zstd_codec.hpp"

namespace retcon::test::keyframe_planes_tests {

using internal::keyframe_planes;

/// Decodes @p payload into a new buffer (empty if decode refuses).
std::vector<std::byte> decoded(keyframe_planes &codec, const std::vector<std::byte> &payload, std::size_t pools) {
    std::vector<std::byte> out(payload.size() - std::min(payload.size(), keyframe_planes::map_bytes(pools)));
    if (!codec.decode(payload, pools, out)) return {};
    return out;
}

bool same_bytes(const std::vector<std::byte> &a, const world_image &b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.bytes().begin());
}

TEST_CASE("keyframe planes: images of every shape round-trip", "[snapshot][keyframe_planes]") {
    keyframe_planes writer, reader;
    internal::zstd_codec zstd;
    std::vector<std::byte> payload;
    for (const schema &s : {grouped_schema(), standard_schema()}) {
        const std::size_t pools = s.components().size();
        world w{s};
        for (std::uint64_t k = 0; k <= 12; ++k) { // an empty world first, then growing and churning
            CAPTURE(k);
            gen_options opt;
            opt.clear_percent_x10 = k % 4 == 3 ? 300 : 0;
            if (k != 0) simulate(w, 5, k * 10, 10, opt);
            const world_image img = save(w, k);
            REQUIRE(writer.encode(img.bytes(), zstd, payload));
            REQUIRE(payload.size() == img.size() + keyframe_planes::map_bytes(pools));
            for (std::size_t i = 0; i < pools; ++i) CHECK(static_cast<std::uint8_t>(payload[i]) <= 1);
            CHECK(same_bytes(decoded(reader, payload, pools), img));
        }
    }
}

TEST_CASE("keyframe planes: owners are stored as indices, their versions said once by the entity table",
          "[snapshot][keyframe_planes]") {
    // Destroy and create again, so that reused slots give owners non-zero versions.
    world w{grouped_schema()};
    std::vector<entity> made;
    for (int i = 0; i < 64; ++i) {
        made.push_back(w.create());
        w.emplace<position>(made.back(), static_cast<float>(i), 1.0f);
    }
    for (int i = 0; i < 64; i += 2) w.destroy(made[static_cast<std::size_t>(i)]);
    for (int i = 0; i < 48; ++i) w.emplace<position>(w.create(), 2.0f, static_cast<float>(i));
    const world_image img = save(w, 1);
    auto parsed = parse_image(img.bytes());
    REQUIRE(parsed.ok());
    const image_view &v = *parsed;
    std::size_t versioned = 0;
    for (const auto &owners : v.owners)
        for (const entity e : owners) versioned += entity_traits::to_version(e) != 0 ? 1u : 0u;
    REQUIRE(versioned > 0);

    keyframe_planes codec;
    internal::zstd_codec zstd;
    std::vector<std::byte> payload;
    REQUIRE(codec.encode(img.bytes(), zstd, payload));
    // Each pool's owners, in planes: the top byte plane held the versions' high bits, now all
    // zero; the byte plane below them, the versions' low bits (indices here are below 2^16).
    const std::size_t map = keyframe_planes::map_bytes(v.owners.size());
    std::size_t checked = 0;
    for (const auto &owners : v.owners) {
        const std::size_t n = owners.size();
        if (n == 0) continue;
        const auto at =
            static_cast<std::size_t>(reinterpret_cast<const std::byte *>(owners.data()) - img.bytes().data());
        for (std::size_t i = 0; i < 2 * n; ++i) CHECK(payload[map + at + 2 * n + i] == std::byte{0});
        checked += n;
    }
    CHECK(checked > 0);
    CHECK(same_bytes(decoded(codec, payload, v.owners.size()), img));
}

TEST_CASE("keyframe planes: a payload encode could not have written is refused", "[snapshot][keyframe_planes]") {
    const world w = make_random_world(grouped_schema(), 2, 30);
    const world_image img = save(w, 5);
    const std::size_t pools = w.pool_count();
    keyframe_planes codec;
    internal::zstd_codec zstd;
    std::vector<std::byte> payload;
    REQUIRE(codec.encode(img.bytes(), zstd, payload));
    std::vector<std::byte> out(img.size());
    SECTION("a map byte other than 0 or 1") {
        payload[0] = std::byte{2};
        CHECK_FALSE(codec.decode(payload, pools, out));
    }
    SECTION("another pool count than the schema's") { CHECK_FALSE(codec.decode(payload, pools + 1, out)); }
    SECTION("an output of another size") {
        out.resize(img.size() - 16);
        CHECK_FALSE(codec.decode(payload, pools, out));
    }
    SECTION("sections that do not add up to the bytes") {
        payload.resize(payload.size() - 16);
        out.resize(img.size() - 16);
        CHECK_FALSE(codec.decode(payload, pools, out));
    }
    SECTION("a pool count beyond the limit") {
        const std::uint32_t huge = 1u << 30;
        std::memcpy(payload.data() + keyframe_planes::map_bytes(pools) + offsetof(image_header, pool_count), &huge, 4);
        CHECK_FALSE(codec.decode(payload, pools, out));
    }
    SECTION("fewer bytes than the map") { CHECK_FALSE(codec.decode(std::span(payload).first(pools - 1), pools, out)); }
}

} // namespace retcon::test::keyframe_planes_tests
