// The world-image layout owner (snapshot/src/image_layout.hpp): sections in order and aligned,
// the writer's and the reader's layouts agreeing, the limits at their boundaries, and a checked
// walk that allocates nothing.
#include <retcon/snapshot/image.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

#include "common/components.hpp"
#include "common/counting_allocator.hpp"
#include "common/world_gen.hpp"
#include "image_layout.hpp"

namespace retcon::test::image_layout_tests {

namespace layout = internal::image_layout;

world busy_world(std::uint64_t seed) { return make_random_world(grouped_schema(), seed, 40); }

/// The image's bytes in a buffer tests can damage (malloc alignment: 4-byte aligned as required).
std::vector<std::byte> bytes_of(const world_image &img) { return {img.bytes().begin(), img.bytes().end()}; }

template<class T>
void poke(std::vector<std::byte> &b, std::size_t off, T v) {
    std::memcpy(b.data() + off, &v, sizeof v);
}

/// Walks @p b without an expected schema; returns the error (errc::ok if the walk succeeds).
error walk(std::span<const std::byte> b) {
    auto r = layout::walk_image(b, std::span<const std::uint32_t>{}, [](const layout::section &, auto) {});
    return r.ok() ? error{} : r.err();
}

TEST_CASE("image layout: a world's layout, its saved image and its regions agree", "[snapshot][image_layout]") {
    const world w = busy_world(1);
    const world_image img = save(w, 7);
    CHECK(layout::total_size(w) == img.size());
    CHECK(image_size(w) == img.size());

    std::vector<layout::region> regions;
    REQUIRE(layout::section_regions(img.bytes(), regions));
    REQUIRE(regions.size() == 2u * w.pool_count() + 5u); // header, table, entities, pools × 2, groups, resources
    std::size_t end = 0;
    for (const auto &r : regions) {
        CHECK(r.offset == end);
        CHECK(r.offset % layout::section_alignment == 0);
        end = r.offset + r.length;
    }
    CHECK(end == img.size());

    // The checked walk hands out each section at the start of its region, unpadded.
    std::size_t i = 0;
    auto walked = layout::walk_image(
        img.bytes(), layout::world_element_sizes{&w}, [&](const layout::section &s, std::span<const std::byte> b) {
            REQUIRE(i < regions.size());
            CHECK(static_cast<std::size_t>(b.data() - img.bytes().data()) == regions[i].offset);
            CHECK(layout::padded(s.bytes) == regions[i].length);
            CHECK(b.size() == s.bytes);
            ++i;
        });
    CHECK(walked.ok());
    CHECK(i == regions.size());
}

TEST_CASE("image layout: the padding after every section is zero", "[snapshot][image_layout]") {
    const world w = busy_world(2);
    const world_image img = save(w);
    std::vector<layout::region> regions;
    REQUIRE(layout::section_regions(img.bytes(), regions));
    std::size_t i = 0;
    auto walked = layout::walk_image(
        img.bytes(), std::span<const std::uint32_t>{}, [&](const layout::section &s, std::span<const std::byte> b) {
            const auto *pad = b.data() + b.size();
            for (auto k = static_cast<std::size_t>(s.bytes); k < regions[i].length; ++k, ++pad)
                CHECK(*pad == std::byte{0});
            ++i;
        });
    CHECK(walked.ok());
}

TEST_CASE("image layout: the reader's limits, at and past their boundaries", "[snapshot][image_layout][hostile]") {
    const world w = busy_world(3);
    const auto good = bytes_of(save(w));
    REQUIRE(walk(good).code == errc::ok);

    SECTION("pool count") {
        auto b = good;
        poke(b, offsetof(image_header, pool_count), static_cast<std::uint32_t>(layout::max_pools + 1));
        const error e = walk(b);
        CHECK(e.code == errc::corrupt);
        CHECK_THAT(e.message(), Catch::Contains("exceed the schema limit"));
        poke(b, offsetof(image_header, pool_count), static_cast<std::uint32_t>(layout::max_pools));
        CHECK_THAT(walk(b).message(), !Catch::Contains("exceed the schema limit")); // allowed, but does not fit
    }
    SECTION("entity slots") {
        auto b = good;
        // A u32 count can exceed the layout only when it has fewer than 2^32 - 1 indices: with
        // 64-bit handles (RETCON_ENTITY_64) every count is within it.
        if constexpr (layout::max_entity_slots < 0xFFFFFFFFu) {
            poke(b, offsetof(image_header, entity_slots), static_cast<std::uint32_t>(layout::max_entity_slots + 1));
            const error e = walk(b);
            CHECK(e.code == errc::corrupt);
            CHECK_THAT(e.message(), Catch::Contains("exceed the handle layout"));
        }
        poke(b, offsetof(image_header, entity_slots), static_cast<std::uint32_t>(layout::max_entity_slots));
        CHECK_THAT(walk(b).message(), Catch::Contains("runs past the end"));
    }
    SECTION("element size") {
        auto b = good;
        const std::size_t size0 = layout::header_bytes + 4u * w.pool_count(); // element size of pool 0
        poke(b, size0, static_cast<std::uint32_t>(layout::max_element_size + 1));
        CHECK_THAT(walk(b).message(), Catch::Contains("pool 0 declares"));
        poke(b, size0, static_cast<std::uint32_t>(layout::max_element_size));
        CHECK_THAT(walk(b).message(), !Catch::Contains("declares"));
        std::vector<layout::region> regions;
        poke(b, size0, static_cast<std::uint32_t>(layout::max_element_size + 1));
        CHECK_FALSE(layout::section_regions(b, regions));
    }
    SECTION("a pool holding more elements than there are entity slots") {
        auto b = good;
        const auto slots = w.entity_table().size();
        poke(b, layout::header_bytes, static_cast<std::uint32_t>(slots + 1)); // count of pool 0
        const error e = walk(b);
        CHECK(e.code == errc::corrupt);
        CHECK_THAT(e.message(), Catch::Contains("pool 0 holds"));
        std::vector<layout::region> regions;
        poke(b, layout::header_bytes, static_cast<std::uint32_t>(layout::max_entity_slots + 1));
        CHECK_FALSE(layout::section_regions(b, regions)); // the delta's structural check has the same bound
    }
    SECTION("sections that do not end where the image does") {
        auto b = good;
        b.resize(b.size() + 16);
        CHECK(walk(b).code == errc::truncated); // the header declares the old size
        poke(b, offsetof(image_header, total_size), std::uint64_t{b.size()});
        const error e = walk(b);
        CHECK(e.code == errc::corrupt);
        CHECK_THAT(e.message(), Catch::Contains("sections end at byte"));
        std::vector<layout::region> regions;
        CHECK_FALSE(layout::section_regions(b, regions));
    }
    SECTION("shorter than a header") {
        std::vector<layout::region> regions;
        const auto head = std::span<const std::byte>(good).first(layout::header_bytes - 1);
        CHECK(walk(head).code == errc::truncated);
        CHECK_FALSE(layout::section_regions(head, regions));
    }
}

TEST_CASE("image layout: section_regions checks the layout, not the identity fields", "[snapshot][image_layout]") {
    // A keyframe delta pairs sections before the decoded image is validated: a wrong magic or
    // version is the validator's to report, with its own code.
    const world w = busy_world(4);
    auto b = bytes_of(save(w));
    poke(b, offsetof(image_header, magic), std::uint32_t{0x12345678});
    std::vector<layout::region> regions;
    CHECK(layout::section_regions(b, regions));
    CHECK(walk(b).code == errc::bad_magic);
}

TEST_CASE("image layout: expected element sizes come from a schema or a live world", "[snapshot][image_layout]") {
    const world w = busy_world(5);
    const world_image img = save(w);
    const auto sizes = layout::element_sizes_of(w.get_schema());
    REQUIRE(sizes.size() == w.pool_count());
    for (std::size_t i = 0; i < sizes.size(); ++i) CHECK(sizes[i] == w.pool_at(i).element_size());
    image_view a, b;
    CHECK(layout::parse_into(img.bytes(), std::span<const std::uint32_t>(sizes), a).ok());
    CHECK(layout::parse_into(img.bytes(), layout::world_element_sizes{&w}, b).ok());

    auto wrong = sizes;
    wrong.back() += 4;
    auto r = layout::parse_into(img.bytes(), std::span<const std::uint32_t>(wrong), a);
    CHECK(r.code() == errc::schema_mismatch);
    wrong.pop_back();
    CHECK(layout::parse_into(img.bytes(), std::span<const std::uint32_t>(wrong), a).code() == errc::schema_mismatch);
}

TEST_CASE("image layout: walking an image and computing its regions allocate nothing once warm",
          "[snapshot][image_layout][allocations]") {
    const world w = busy_world(6);
    const world_image img = save(w);
    std::vector<layout::region> regions;
    image_view view;
    REQUIRE(layout::section_regions(img.bytes(), regions));
    REQUIRE(layout::parse_into(img.bytes(), layout::world_element_sizes{&w}, view).ok());
    allocation_counter counter;
    std::size_t sections = 0;
    for (int i = 0; i < 10; ++i) {
        REQUIRE(layout::walk_image(img.bytes(), layout::world_element_sizes{&w},
                                   [&](const layout::section &, std::span<const std::byte>) { ++sections; })
                    .ok());
        REQUIRE(layout::section_regions(img.bytes(), regions));
        REQUIRE(layout::parse_into(img.bytes(), layout::world_element_sizes{&w}, view).ok());
        CHECK(layout::total_size(w) == img.size());
    }
    CHECK(counter.count() == 0);
    CHECK(sections == 10u * regions.size());
}

} // namespace retcon::test::image_layout_tests
