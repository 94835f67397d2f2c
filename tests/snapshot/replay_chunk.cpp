// Replay chunk framing (snapshot/src/replay_chunk.hpp): a chunk's header reads back, its header
// check and checksum catch damage, and the seek index lists exactly the chunks it was made from.
#include <retcon/snapshot/hash.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <vector>

#include "replay_chunk.hpp"

namespace retcon::test::replay_chunk_tests {

using namespace retcon::internal;

std::vector<std::byte> bytes_from(std::size_t n, std::uint8_t first) {
    std::vector<std::byte> b(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::byte>(first + i);
    return b;
}

TEST_CASE("replay chunk: a chunk's header reads back and checks its payload", "[snapshot][replay_chunk]") {
    const auto raw = bytes_from(100, 1);
    const auto stored = bytes_from(30, 200); // stands in for the zstd frame of raw
    std::vector<std::byte> chunk;
    encode_chunk(chunk, chunk_kind::frames, 4242, 7, raw, stored);
    REQUIRE(chunk.size() == chunk_header_size + stored.size());
    const chunk_header h = read_chunk_header(chunk);
    CHECK(h.magic == chunk_magic);
    CHECK(h.kind == chunk_kind::frames);
    CHECK(h.frame == 4242);
    CHECK(h.count == 7);
    CHECK(h.stored == stored.size());
    CHECK(h.raw == raw.size());
    CHECK(chunk_header_intact(chunk, h));
    const auto payload = chunk_payload(chunk, h);
    CHECK(std::equal(payload.begin(), payload.end(), stored.begin(), stored.end()));
    CHECK(chunk_checksum_matches(chunk, h, raw));

    auto other = raw;
    other[50] ^= std::byte{1};
    CHECK_FALSE(chunk_checksum_matches(chunk, h, other));
    for (std::size_t i = 0; i < 28; ++i) { // every byte the header check covers
        CAPTURE(i);
        auto damaged = chunk;
        damaged[i] ^= std::byte{0x20};
        CHECK_FALSE(chunk_header_intact(damaged, read_chunk_header(damaged)));
    }
}

TEST_CASE("replay chunk: the seek index lists exactly its chunks", "[snapshot][replay_chunk]") {
    const std::vector<index_entry> chunks = {
        {chunk_kind::full_keyframe, 0, 120}, {chunk_kind::frames, 0, 900}, {chunk_kind::delta_keyframe, 16, 1500}};
    std::vector<std::byte> raw;
    encode_index(chunks, raw);
    CHECK(raw.size() == 4u + index_entry_size * chunks.size());
    CHECK(index_lists(raw, chunks));
    CHECK_FALSE(index_lists(raw, std::span<const index_entry>(chunks).first(2)));
    auto moved = chunks;
    moved[1].offset += 1;
    CHECK_FALSE(index_lists(raw, moved));
    auto longer = raw;
    longer.push_back(std::byte{0});
    CHECK_FALSE(index_lists(longer, chunks));
}

TEST_CASE("replay chunk: the trailer points at the index", "[snapshot][replay_chunk]") {
    std::vector<std::byte> t;
    encode_trailer(98765, t);
    REQUIRE(t.size() == trailer_size);
    const trailer r = read_trailer(t);
    CHECK(r.index_offset == 98765);
    CHECK(r.magic == trailer_magic);
    CHECK(r.reserved == 0);
}

} // namespace retcon::test::replay_chunk_tests
