// Keyframe deltas (snapshot/src/keyframe_delta.hpp): encode then decode gives the image back,
// across pools that grow and shrink; layouts that cannot be paired are refused; a warm codec
// does not allocate.
#include <retcon/snapshot/image.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "common/components.hpp"
#include "common/counting_allocator.hpp"
#include "common/world_gen.hpp"
#include "keyframe_delta.hpp"

namespace retcon::test::keyframe_delta_tests {

using internal::keyframe_delta;

/// Decodes @p delta against @p previous into a new buffer (empty if decode refuses).
std::vector<std::byte> decoded(keyframe_delta &codec, const std::vector<std::byte> &delta,
                               const world_image &previous) {
    std::vector<std::byte> out(delta.size());
    if (!codec.decode(delta, previous.bytes(), out)) return {};
    return out;
}

bool same_bytes(const std::vector<std::byte> &a, const world_image &b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.bytes().begin());
}

TEST_CASE("keyframe delta: a chain of keyframes round-trips while pools grow and shrink",
          "[snapshot][keyframe_delta]") {
    world w = make_random_world(grouped_schema(), 1, 5);
    keyframe_delta writer, reader;
    world_image previous = save(w, 0);
    std::vector<std::byte> delta;
    std::size_t grew = 0, shrank = 0;
    for (std::uint64_t k = 1; k <= 30; ++k) {
        CAPTURE(k);
        gen_options opt;
        opt.clear_percent_x10 = k % 3 == 0 ? 200 : 0; // some keyframes lose entities, most gain
        simulate(w, 7, k * 10, 10, opt);
        const world_image current = save(w, k * 10);
        (current.size() > previous.size() ? grew : shrank) += current.size() != previous.size() ? 1u : 0u;
        REQUIRE(writer.encode(current.bytes(), previous.bytes(), delta));
        REQUIRE(delta.size() == current.size());
        CHECK(same_bytes(decoded(reader, delta, previous), current));
        previous = current;
    }
    CHECK(grew > 0);
    CHECK(shrank > 0);
}

TEST_CASE("keyframe delta: an unchanged world is all zero bytes", "[snapshot][keyframe_delta]") {
    const world w = make_random_world(grouped_schema(), 2, 30);
    const world_image a = save(w, 5);
    keyframe_delta codec;
    std::vector<std::byte> delta;
    REQUIRE(codec.encode(a.bytes(), a.bytes(), delta));
    CHECK(std::all_of(delta.begin(), delta.end(), [](std::byte b) { return b == std::byte{0}; }));
    // The frame number differs, nothing else: the delta holds only those bytes.
    const world_image b = save(w, 6);
    REQUIRE(codec.encode(b.bytes(), a.bytes(), delta));
    std::size_t nonzero = 0;
    for (std::size_t i = 0; i < delta.size(); ++i) nonzero += delta[i] != std::byte{0} ? 1u : 0u;
    CHECK(nonzero == 1); // frame 5 XOR frame 6 = 3: one byte of the header's frame field
    CHECK(delta[offsetof(image_header, frame)] == std::byte{3});
}

TEST_CASE("keyframe delta: layouts that cannot be paired are refused", "[snapshot][keyframe_delta][hostile]") {
    const world full = make_random_world(standard_schema(), 3, 20);
    schema two;
    two.component<position>().component<velocity>();
    world small{two};
    small.emplace<position>(small.create(), 1.0f, 2.0f);
    keyframe_delta codec;
    std::vector<std::byte> delta;
    const world_image a = save(full);
    CHECK_FALSE(codec.encode(save(small).bytes(), a.bytes(), delta)); // other pool counts: other region counts

    SECTION("a previous image that is not one") {
        const std::vector<std::byte> junk(40, std::byte{0x11});
        std::vector<std::byte> out(a.size());
        CHECK_FALSE(codec.encode(a.bytes(), junk, delta));
        CHECK_FALSE(codec.decode(std::vector<std::byte>(a.size()), junk, out));
    }
    SECTION("a delta whose decoded layout does not add up") {
        const world_image next = save(make_random_world(standard_schema(), 3, 25));
        REQUIRE(codec.encode(next.bytes(), a.bytes(), delta));
        const std::size_t count0 = sizeof(image_header); // element count of pool 0, in the pool table
        delta[count0] ^= std::byte{0x40};
        std::vector<std::byte> out(delta.size());
        CHECK_FALSE(codec.decode(delta, a.bytes(), out));
    }
    SECTION("a delta shorter than the previous image's header and pool table") {
        std::vector<std::byte> out(32);
        CHECK_FALSE(codec.decode(std::vector<std::byte>(32), a.bytes(), out));
    }
}

TEST_CASE("keyframe delta: a warm codec allocates nothing", "[snapshot][keyframe_delta][allocations]") {
    world w = make_random_world(grouped_schema(), 4, 40);
    const world_image a = save(w, 1);
    simulate(w, 9, 40, 5);
    const world_image b = save(w, 2);
    keyframe_delta codec;
    std::vector<std::byte> delta;
    std::vector<std::byte> out(std::max(a.size(), b.size()));
    REQUIRE(codec.encode(b.bytes(), a.bytes(), delta));
    REQUIRE(codec.encode(a.bytes(), b.bytes(), delta)); // both sizes seen
    allocation_counter counter;
    for (int i = 0; i < 10; ++i) {
        REQUIRE(codec.encode(b.bytes(), a.bytes(), delta));
        REQUIRE(codec.decode(delta, a.bytes(), std::span<std::byte>(out).first(delta.size())));
        REQUIRE(codec.encode(a.bytes(), b.bytes(), delta));
        REQUIRE(codec.decode(delta, b.bytes(), std::span<std::byte>(out).first(delta.size())));
    }
    CHECK(counter.count() == 0);
}

} // namespace retcon::test::keyframe_delta_tests
