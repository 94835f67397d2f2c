// The rollback ring: slot arithmetic, invalidation of the discarded future, and long runs of
// rollbacks that must stay byte-identical to a world that never rolled back (docs/snapshot.md, "Restore").
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/ring.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>

#include "common/components.hpp"
#include "common/world_gen.hpp"

using namespace retcon;
using namespace retcon::test;
using Catch::Matchers::Contains;

TEST_CASE("a ring holds its last K frames", "[snapshot][ring]") {
    const schema s = standard_schema();
    world w{s};
    snapshot_ring ring{4};
    CHECK(ring.capacity() == 4);
    CHECK(ring.size() == 0);
    CHECK_FALSE(ring.oldest());
    CHECK_FALSE(ring.newest());
    CHECK(ring.find(0) == nullptr);

    std::vector<hash64> hashes;
    for (retcon::frame_t f = 0; f < 4; ++f) {
        ring.save(w, f);
        hashes.push_back(hash(w));
        simulate_frame(w, 1, f);
    }
    CHECK(ring.size() == 4);
    CHECK(*ring.oldest() == 0);
    CHECK(*ring.newest() == 3);
    for (retcon::frame_t f = 0; f < 4; ++f) {
        REQUIRE(ring.contains(f));
        CHECK(ring.find(f)->frame() == f);
        CHECK(hash(*ring.find(f)) == hashes[f]);
    }
    CHECK(ring.memory() >= 4 * ring.find(0)->size() / 2);

    ring.save(w, 4); // F + K overwrites F
    CHECK_FALSE(ring.contains(0));
    CHECK(ring.contains(4));
    CHECK(ring.size() == 4);
    CHECK(*ring.oldest() == 1);
    CHECK(*ring.newest() == 4);
    CHECK(ring.find(0) == nullptr);

    const auto memory = ring.memory();
    ring.clear();
    CHECK(ring.size() == 0);
    CHECK_FALSE(ring.contains(4));
    CHECK_FALSE(ring.newest());
    CHECK(ring.memory() == memory); // buffers are kept
}

TEST_CASE("a ring of capacity zero still holds one frame", "[snapshot][ring]") {
    world w{standard_schema()};
    snapshot_ring ring{0};
    CHECK(ring.capacity() == 1);
    ring.save(w, 10);
    CHECK(ring.contains(10));
    ring.save(w, 11);
    CHECK_FALSE(ring.contains(10));
    CHECK(ring.contains(11));
}

TEST_CASE("restoring frame F drops every newer frame", "[snapshot][ring]") {
    const schema s = grouped_schema();
    world w{s};
    snapshot_ring ring{9};
    std::vector<hash64> at;
    for (retcon::frame_t f = 0; f < 12; ++f) {
        ring.save(w, f);
        at.push_back(hash(w));
        simulate_frame(w, 2, f);
    }
    REQUIRE(*ring.oldest() == 3);
    REQUIRE(ring.restore(w, 7).ok());
    CHECK(hash(w) == at[7]);
    CHECK(ring.contains(7));
    for (retcon::frame_t f = 8; f < 12; ++f) CHECK_FALSE(ring.contains(f));
    for (retcon::frame_t f = 3; f <= 7; ++f) CHECK(ring.contains(f));
    CHECK(*ring.newest() == 7);
    CHECK(ring.size() == 5);

    // A dropped frame cannot be restored even though its slot still has a buffer.
    auto gone = ring.restore(w, 9);
    CHECK(gone.code() == errc::not_found);
    CHECK_THAT(gone.message(), Contains("frame 9"));
    CHECK_THAT(gone.message(), Contains("3..7"));
    CHECK(hash(w) == at[7]); // a failed restore leaves the world alone

    // Re-saving after the rollback: the new future replaces the old one.
    w.set_resource<game_clock>(4242u, 60u);
    ring.save(w, 8);
    CHECK(ring.contains(8));
    CHECK(hash(*ring.find(8)) == hash(w));
    CHECK(hash(*ring.find(8)) != at[8]);
    simulate_frame(w, 3, 8);
    REQUIRE(ring.restore(w, 8).ok());
    CHECK(w.resource<game_clock>().frame == 4242u);
}

TEST_CASE("restore reports frames the ring does not hold", "[snapshot][ring]") {
    world w{standard_schema()};
    snapshot_ring ring{3};
    auto nothing = ring.restore(w, 0);
    CHECK(nothing.code() == errc::not_found);
    CHECK_THAT(nothing.message(), Contains("nothing"));
    for (retcon::frame_t f = 0; f < 6; ++f) ring.save(w, f);
    auto too_old = ring.restore(w, 1);
    CHECK(too_old.code() == errc::not_found);
    CHECK_THAT(too_old.message(), Contains("frame 1"));
    CHECK_THAT(too_old.message(), Contains("3..5"));
    auto future = ring.restore(w, 6);
    CHECK(future.code() == errc::not_found);
    CHECK_THAT(future.message(), Contains("frame 6"));
    auto same_slot = ring.restore(w, 8); // slot 2 holds frame 5, not 8
    CHECK(same_slot.code() == errc::not_found);
}

TEST_CASE("restoring the newest frame keeps the ring intact", "[snapshot][ring]") {
    world w = make_random_world(standard_schema(), 5, 10);
    snapshot_ring ring{4};
    for (retcon::frame_t f = 0; f < 4; ++f) ring.save(w, f);
    REQUIRE(ring.restore(w, 3).ok());
    CHECK(ring.size() == 4);
}

TEST_CASE("a ring refuses to restore a frame into a world of another schema", "[snapshot][ring]") {
    world w = make_random_world(standard_schema(), 5, 10);
    snapshot_ring ring{4};
    ring.save(w, 0);
    ring.save(w, 1);
    world other = make_random_world(grouped_schema(), 5, 10);
    const auto before = capture(other);
    CHECK(ring.restore(other, 0).code() == errc::schema_mismatch);
    CHECK(capture(other) == before);
    CHECK(ring.contains(1)); // nothing was discarded
}

TEST_CASE("a long-running world with rollbacks and a fresh world restored from it stay byte-identical",
          "[snapshot][ring][determinism]") {
    // Restore must never let the discarded future leak back (stale sparse pages,
    // payload tails, entity table tails). World `a` keeps rolling back and re-simulating; `b`
    // is a fresh world restored from one of a's snapshots and then never rolls back.
    const schema s = grouped_schema();
    gen_options opt;
    opt.ops_per_frame = 6;
    opt.max_entities = 300;
    for (std::uint64_t seed : {101u, 202u}) {
        CAPTURE(seed);
        world a{s};
        snapshot_ring ring{9};
        std::unique_ptr<world> b;
        std::uint64_t rollbacks = 0, compared = 0;
        std::uint32_t most_alive = 0;
        const retcon::frame_t frames = 5000;
        for (retcon::frame_t f = 0; f < frames; ++f) {
            ring.save(a, f); // the state at the start of frame f
            if (f == 300) {
                b = std::make_unique<world>(s);
                REQUIRE(restore(*b, *ring.find(f)).ok());
            }
            if (f > 16 && f % 5 == 0) {
                const retcon::frame_t back = 1 + (f / 5) % 8;
                REQUIRE(ring.restore(a, f - back).ok());
                ++rollbacks;
                for (retcon::frame_t g = f - back; g < f; ++g) {
                    simulate_frame(a, seed, g, opt);
                    ring.save(a, g + 1);
                }
            }
            simulate_frame(a, seed, f, opt);
            most_alive = std::max(most_alive, a.alive());
            if (b) {
                simulate_frame(*b, seed, f, opt);
                REQUIRE(hash(a) == hash(*b));
                if (f % 25 == 0) {
                    const auto ca = capture(a);
                    const auto cb = capture(*b);
                    INFO("differs in: " << describe_difference(ca, cb));
                    REQUIRE(ca == cb);
                    ++compared;
                }
            }
        }
        CHECK(rollbacks > 900);
        CHECK(compared > 180);
        CHECK(most_alive > 100);
        CHECK(capture(a) == capture(*b));
    }
}
