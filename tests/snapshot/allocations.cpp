// Steady state allocates nothing: save into a warm snapshot, restore, hash, and the rollback
// ring's save and restore, once buffers have reached their high-water marks.
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/image.hpp>
#include <retcon/snapshot/ring.hpp>

#include <catch2/catch.hpp>

#include "common/components.hpp"
#include "common/counting_allocator.hpp"
#include "common/world_gen.hpp"

using namespace retcon;
using namespace retcon::test;

namespace {
world busy_world(std::uint64_t seed, std::uint64_t frames) {
    gen_options opt;
    opt.clear_percent_x10 = 0;
    return make_random_world(grouped_schema(), seed, frames, opt);
}
} // namespace

TEST_CASE("saving into a warm snapshot does not allocate", "[snapshot][allocations]") {
    const world w = busy_world(1, 60);
    REQUIRE(w.alive() > 20);
    world_image snap;
    save(w, snap, 0); // warm-up: the buffer grows once
    allocation_counter counter;
    for (std::uint64_t f = 1; f <= 100; ++f) save(w, snap, f);
    CHECK(counter.count() == 0);
    CHECK(snap.frame() == 100);
}

TEST_CASE("restoring the same sizes again does not allocate", "[snapshot][allocations]") {
    world w = busy_world(2, 60);
    const world_image snap = save(w);
    REQUIRE(restore(w, snap).ok()); // warm-up: sparse pages, scratch
    allocation_counter counter;
    for (int i = 0; i < 100; ++i) REQUIRE(restore(w, snap).ok());
    CHECK(counter.count() == 0);
}

TEST_CASE("hashing a world does not allocate", "[snapshot][allocations]") {
    const world w = busy_world(3, 60);
    world_hashes sections;
    section_hashes(w, sections);
    (void)hash(w);
    allocation_counter counter;
    hash64 h = 0;
    for (int i = 0; i < 100; ++i) {
        h ^= hash(w);
        section_hashes(w, sections);
    }
    CHECK(counter.count() == 0);
    CHECK(sections.world == hash(w));
    (void)h;
}

TEST_CASE("ring save and restore do not allocate in steady state", "[snapshot][allocations]") {
    world w = busy_world(4, 60);
    snapshot_ring ring{8};
    for (retcon::frame_t f = 0; f < 16; ++f) ring.save(w, f); // every slot reaches its size
    REQUIRE(ring.restore(w, 15).ok());
    allocation_counter counter;
    for (retcon::frame_t f = 16; f < 200; ++f) {
        ring.save(w, f);
        if (f % 5 == 0) {
            REQUIRE(ring.restore(w, f - 3).ok());
            for (retcon::frame_t g = f - 2; g <= f; ++g) ring.save(w, g);
        }
    }
    CHECK(counter.count() == 0);
}

TEST_CASE("alternating between two states allocates nothing once both were seen", "[snapshot][allocations]") {
    // Buffers grow to their high-water mark and are then reused, whichever state comes next.
    const world small = busy_world(5, 20);
    const world large = busy_world(6, 120);
    REQUIRE(large.alive() > small.alive());
    const world_image a = save(small);
    const world_image b = save(large);
    world w{grouped_schema()};
    snapshot_ring ring{4};
    retcon::frame_t frame = 0;
    auto cycle = [&] {
        for (int i = 0; i < 4; ++i) {
            REQUIRE(restore(w, (i % 2) ? a : b).ok());
            ring.save(w, frame++);
            (void)hash(w);
        }
        REQUIRE(ring.restore(w, frame - 2).ok());
    };
    cycle();
    cycle();
    allocation_counter counter;
    for (int i = 0; i < 20; ++i) cycle();
    CHECK(counter.count() == 0);
}
