// Determinism across snapshots: two worlds fed the same random operations must agree bit for
// bit after every step, whatever snapshot/restore/rollback the second one goes through.
#include <retcon/snapshot/file.hpp>
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/image.hpp>
#include <retcon/snapshot/ring.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/components.hpp"
#include "common/temp_dir.hpp"
#include "common/world_gen.hpp"

using namespace retcon;
using namespace retcon::test;

namespace {
const std::uint64_t seeds[] = {1, 17, 4242, 987654321};
}

TEST_CASE("save and restore in place at random points changes nothing", "[snapshot][determinism]") {
    for (const schema &s : {standard_schema(), grouped_schema()}) {
        for (const std::uint64_t seed : seeds) {
            CAPTURE(seed, s.groups().size());
            world a{s}, b{s};
            rng chooser{seed ^ 0xabcdefu};
            world_image snap;
            for (std::uint64_t f = 0; f < 300; ++f) {
                simulate_frame(a, seed, f);
                simulate_frame(b, seed, f);
                if (chooser.chance(30)) {
                    save(b, snap, f);
                    if (chooser.chance(50)) simulate_frame(b, seed + 1, f); // a future to throw away
                    REQUIRE(restore(b, snap).ok());
                }
                REQUIRE(hash(a) == hash(b));
                if (f % 20 == 0) REQUIRE(capture(a) == capture(b));
            }
            CHECK(capture(a) == capture(b));
        }
    }
}

TEST_CASE("moving to a fresh world through a snapshot at random points changes nothing", "[snapshot][determinism]") {
    const schema s = grouped_schema();
    for (const std::uint64_t seed : seeds) {
        CAPTURE(seed);
        world a{s};
        auto b = std::make_unique<world>(s);
        rng chooser{seed + 3};
        std::size_t moves = 0;
        for (std::uint64_t f = 0; f < 300; ++f) {
            simulate_frame(a, seed, f);
            simulate_frame(*b, seed, f);
            if (chooser.chance(10)) {
                auto fresh = std::make_unique<world>(s);
                REQUIRE(restore(*fresh, save(*b, f)).ok());
                b = std::move(fresh);
                ++moves;
            }
            REQUIRE(hash(a) == hash(*b));
        }
        CHECK(moves > 10);
        CHECK(capture(a) == capture(*b));
    }
}

TEST_CASE("rolling back a random number of frames and re-simulating converges on the straight run",
          "[snapshot][determinism]") {
    const schema s = grouped_schema();
    for (const std::uint64_t seed : seeds) {
        CAPTURE(seed);
        world straight{s}, rolled{s};
        snapshot_ring ring{17};
        rng chooser{seed * 31u};
        std::vector<hash64> expected; // straight's hash at the start of each frame
        for (retcon::frame_t f = 0; f < 400; ++f) {
            expected.push_back(hash(straight));
            simulate_frame(straight, seed, f);

            ring.save(rolled, f);
            REQUIRE(hash(rolled) == expected[f]);
            if (f > 0 && chooser.chance(25)) {
                const retcon::frame_t back = 1 + chooser.below(std::min<std::uint32_t>(f, 16));
                const retcon::frame_t to = f - back;
                REQUIRE(ring.restore(rolled, to).ok());
                REQUIRE(hash(rolled) == expected[to]);
                for (retcon::frame_t g = to; g < f; ++g) {
                    simulate_frame(rolled, seed, g);
                    ring.save(rolled, g + 1);
                    REQUIRE(hash(rolled) == expected[g + 1]);
                }
            }
            simulate_frame(rolled, seed, f);
            REQUIRE(hash(rolled) == hash(straight));
        }
        CHECK(capture(rolled) == capture(straight));
    }
}

TEST_CASE("a sync test (roll back N every frame) finds no divergence in deterministic operations",
          "[snapshot][determinism]") {
    const schema s = standard_schema();
    const std::uint64_t seed = 55;
    const retcon::frame_t n = 6;
    world w{s};
    snapshot_ring ring{n + 1};
    for (retcon::frame_t f = 0; f < 200; ++f) {
        ring.save(w, f);
        simulate_frame(w, seed, f);
        if (f >= n) {
            const hash64 before = hash(w);
            const world_hashes sections = section_hashes(w);
            REQUIRE(ring.restore(w, f - n).ok());
            for (retcon::frame_t g = f - n; g <= f; ++g) {
                if (g > f - n) ring.save(w, g);
                simulate_frame(w, seed, g);
            }
            std::string diverging;
            for (const auto &name : section_hashes(w).diverging(sections, s)) diverging += name + " ";
            INFO("frame " << f << " diverging: " << diverging);
            REQUIRE(hash(w) == before);
        }
    }
}

TEST_CASE("a world reloaded from a snapshot file keeps in step", "[snapshot][determinism][file]") {
    temp_dir dir;
    const schema s = grouped_schema();
    for (const std::uint64_t seed : seeds) {
        CAPTURE(seed);
        world a{s};
        simulate(a, seed, 0, 100);
        REQUIRE(write_snapshot_file(dir / "mid.rcs", a, 100).ok());
        world b{s};
        auto frame = load_snapshot_file(dir / "mid.rcs", b);
        REQUIRE(frame.ok());
        for (std::uint64_t f = *frame; f < *frame + 150; ++f) {
            simulate_frame(a, seed, f);
            simulate_frame(b, seed, f);
            REQUIRE(hash(a) == hash(b));
        }
        CHECK(capture(a) == capture(b));
    }
}

TEST_CASE("the determinism checks can fail: different operations diverge", "[snapshot][determinism]") {
    const schema s = standard_schema();
    world a{s}, b{s};
    simulate(a, 1, 0, 20);
    simulate(b, 1, 0, 20);
    REQUIRE(hash(a) == hash(b));
    simulate_frame(a, 1, 20);
    simulate_frame(b, 2, 20);
    CHECK(hash(a) != hash(b));
    CHECK(capture(a) != capture(b));
}
