// frame_ring (net/src/frame_ring.hpp): the records keyed by frame under the input queue, the
// server's input history and its recorded hashes (docs/net.md, "The model").
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "frame_ring.hpp"

using namespace retcon;
using internal::frame_ring;

namespace {

/// Writes @p value into every byte of @p frame's record.
void fill(frame_ring &r, frame_t frame, std::uint8_t value) { std::memset(r.put(frame), value, r.record_size()); }

/// True if @p frame's record is held and every byte of it is @p value.
bool holds(const frame_ring &r, frame_t frame, std::uint8_t value) {
    const std::byte *p = r.get(frame);
    if (!p) return false;
    for (std::size_t i = 0; i < r.record_size(); ++i)
        if (p[i] != std::byte{value}) return false;
    return true;
}

} // namespace

TEST_CASE("frame_ring rounds its capacity up to a power of two and keeps the record size", "[net][parts][frame_ring]") {
    frame_ring r;
    r.reset(5, 3);
    CHECK(r.capacity() == 8);
    CHECK(r.record_size() == 3);
    r.reset(8, 2);
    CHECK(r.capacity() == 8);
    r.reset(9, 2);
    CHECK(r.capacity() == 16);
    r.reset(1, 4);
    CHECK(r.capacity() == 1);
    r.reset(0, 4);
    CHECK(r.capacity() == 1);
    r.reset(1000, 8);
    CHECK(r.capacity() == 1024);
    CHECK(r.record_size() == 8);
}

TEST_CASE("frame_ring: every frame of a full ring has its own record", "[net][parts][frame_ring]") {
    frame_ring r;
    r.reset(6, 5); // 8 slots
    for (frame_t f = 100; f < 108; ++f) fill(r, f, static_cast<std::uint8_t>(f));
    for (frame_t f = 100; f < 108; ++f) {
        INFO("frame " << f);
        CHECK(r.has(f));
        CHECK(holds(r, f, static_cast<std::uint8_t>(f)));
    }
    CHECK_FALSE(r.has(99));
    CHECK_FALSE(r.has(108));
}

TEST_CASE("frame_ring: frame f + capacity takes frame f's slot and f is no longer held", "[net][parts][frame_ring]") {
    frame_ring r;
    r.reset(4, 2);
    fill(r, 1, 0x11);
    // Frame 5 maps to frame 1's slot: not held before it is put, though the slot has a record.
    CHECK_FALSE(r.has(5));
    CHECK(r.get(5) == nullptr);
    CHECK(holds(r, 1, 0x11));
    const std::byte *slot = r.get(1);
    std::byte *claimed = r.put(5);
    CHECK(claimed == slot);
    // put() leaves the contents: the caller writes them.
    CHECK(claimed[0] == std::byte{0x11});
    std::memset(claimed, 0x55, 2);
    CHECK_FALSE(r.has(1));
    CHECK(r.get(1) == nullptr);
    CHECK(holds(r, 5, 0x55));
    // The other slots are untouched by the reuse.
    for (frame_t f : {0u, 2u, 3u, 4u, 6u}) CHECK_FALSE(r.has(f));
    // Large frame numbers map through the mask too.
    fill(r, max_frame, 0x77); // 0xFFFFFFFE: slot 2
    CHECK(holds(r, max_frame, 0x77));
    CHECK_FALSE(r.has(max_frame - 4u));
    CHECK(holds(r, 5, 0x55));
}

TEST_CASE("frame_ring: clear forgets every frame, keeps its size, and records again", "[net][parts][frame_ring]") {
    frame_ring r;
    r.reset(4, 3);
    for (frame_t f = 0; f < 4; ++f) fill(r, f, 0xAA);
    r.clear();
    for (frame_t f = 0; f < 8; ++f) {
        CHECK_FALSE(r.has(f));
        CHECK(r.get(f) == nullptr);
    }
    CHECK(r.capacity() == 4);
    CHECK(r.record_size() == 3);
    fill(r, 6, 0x06);
    CHECK(holds(r, 6, 0x06));
    CHECK_FALSE(r.has(2));
}

TEST_CASE("frame_ring: a ring never reset holds nothing, a reset one holds no frame yet", "[net][parts][frame_ring]") {
    const frame_ring never;
    CHECK(never.capacity() == 1);
    CHECK_FALSE(never.has(0));
    CHECK(never.get(0) == nullptr);
    CHECK_FALSE(never.has(12345));

    frame_ring r;
    r.reset(16, 4);
    for (frame_t f = 0; f < 40; ++f) CHECK_FALSE(r.has(f));
    fill(r, 3, 1);
    // A second reset starts over: nothing put before it is held.
    r.reset(16, 4);
    CHECK_FALSE(r.has(3));
    CHECK(r.get(3) == nullptr);
}

TEST_CASE("frame_ring: no_frame, the mark of an empty slot, is never held", "[net][parts][frame_ring]") {
    frame_ring r;
    r.reset(8, 4);
    CHECK_FALSE(r.has(no_frame));
    CHECK(r.get(no_frame) == nullptr);
    r.put(7);
    r.clear();
    CHECK_FALSE(r.has(no_frame));
}
