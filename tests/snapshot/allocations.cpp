// Steady state allocates nothing: save into a warm snapshot, restore, hash, and the rollback
// ring's save and restore, once buffers have reached their high-water marks.
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/image.hpp>
#include <retcon/snapshot/ring.hpp>

#include <catch2/catch.hpp>

#include <cstring>

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

TEST_CASE("a restore into a fresh world reserves about what it copies, in few allocations", "[snapshot][allocations]") {
    // 1,100 entities: their positions take 8,800 bytes, which growing by doubling would round
    // up to 16,384; a fresh restore allocates each array at its size instead.
    world source{standard_schema()};
    for (std::uint32_t i = 0; i < 1100; ++i) {
        const entity e = source.create();
        source.emplace<position>(e, static_cast<float>(i), 1.0f);
        if (i % 2 == 0) source.emplace<velocity>(e, 0.5f, 0.0f);
        if (i % 3 == 0) source.emplace<health>(e, health{10, 2, 1, 0});
    }
    const world_image snap = save(source);
    world warm{standard_schema()};
    REQUIRE(restore(warm, snap).ok()); // the per-thread view grows here, not below

    world fresh{standard_schema()};
    std::size_t nonempty = 0;
    for (std::size_t i = 0; i < source.pool_count(); ++i) nonempty += source.pool_at(i).empty() ? 0u : 1u;
    const heap_watermark heap;
    std::size_t allocations = 0;
    long long reserved = 0;
    {
        allocation_counter counter;
        const bool ok = restore(fresh, snap).ok();
        allocations = counter.count();
        reserved = heap.live();
        REQUIRE(ok);
    }
    const world_image again = save(fresh);
    REQUIRE(again.size() == snap.size());
    CHECK(std::memcmp(again.bytes().data(), snap.bytes().data(), snap.size()) == 0);
    for (const entity e : source.entity_table())
        if (source.valid(e)) CHECK(fresh.has<position>(e)); // lookups go through the rebuilt index
    // The entity table, then per non-empty pool its owners, payload, page list and one page
    // (every index is below one page), with one more page-list growth per 1,024-owner block.
    CHECK(allocations <= 1u + 5u * nonempty);
    const auto bound = static_cast<long long>(snap.size()) + static_cast<long long>(fresh.derived_bytes()) +
                       64LL * static_cast<long long>(allocations);
    CHECK(reserved <= bound);
}
