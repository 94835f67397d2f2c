// snapshot_receiver and send_snapshot_chunks (net/src/snapshot_transfer.hpp): one transfer of a
// snapshot file in chunks, and what the receiver refuses (docs/protocol.md, "Snapshot transfers").
#include <catch2/catch.hpp>

#include <retcon/net/protocol.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "snapshot_transfer.hpp"

using namespace retcon;
using internal::send_snapshot_chunks;
using internal::snapshot_receiver;

namespace {

constexpr std::size_t chunk = wire::limits::snapshot_chunk;

/// @p n bytes that differ from their neighbours (a shifted chunk would not compare equal).
std::vector<std::byte> file_of(std::size_t n, std::uint32_t seed = 1) {
    std::vector<std::byte> f(n);
    std::uint32_t s = seed;
    for (auto &b : f) {
        s = s * 1664525u + 1013904223u;
        b = static_cast<std::byte>(s >> 24);
    }
    return f;
}

/// The decoded messages send_snapshot_chunks sends for @p file.
std::vector<wire::snapshot_chunk_msg> chunks_of(std::uint32_t transfer, frame_t frame,
                                                const std::vector<std::byte> &file) {
    std::vector<wire::snapshot_chunk_msg> out;
    send_snapshot_chunks(transfer, frame, file, [&](std::span<const std::byte> encoded) {
        wire::snapshot_chunk_msg m;
        const auto r = wire::decode(encoded, m);
        REQUIRE(r);
        out.push_back(std::move(m));
    });
    return out;
}

} // namespace

TEST_CASE("snapshot chunks round-trip through the wire byte for byte, at every chunk boundary",
          "[net][parts][snapshot_transfer]") {
    for (const std::size_t n :
         {std::size_t{1}, chunk - 1, chunk, chunk + 1, 2 * chunk, 3 * chunk, 2 * chunk + 500, 10 * chunk + 7}) {
        INFO("file of " << n << " bytes");
        const auto file = file_of(n, static_cast<std::uint32_t>(n));
        const auto msgs = chunks_of(77, 4242, file);
        REQUIRE(msgs.size() == (n + chunk - 1) / chunk);
        snapshot_receiver rx{wire::limits::max_snapshot};
        for (std::size_t i = 0; i < msgs.size(); ++i) {
            const auto &m = msgs[i];
            CHECK(m.transfer == 77);
            CHECK(m.frame == 4242);
            CHECK(m.total == n);
            CHECK(m.offset == i * chunk);
            CHECK(m.bytes.size() == (i + 1 < msgs.size() ? chunk : n - i * chunk));
            CHECK_FALSE(rx.complete());
            REQUIRE(rx.add(m));
        }
        REQUIRE(rx.complete());
        CHECK(rx.frame() == 4242);
        const auto got = rx.bytes();
        CHECK(std::vector<std::byte>(got.begin(), got.end()) == file);
    }
}

TEST_CASE("send_snapshot_chunks sends nothing for an empty file", "[net][parts][snapshot_transfer]") {
    std::size_t sent = 0;
    send_snapshot_chunks(1, 2, std::span<const std::byte>{}, [&](std::span<const std::byte>) { ++sent; });
    CHECK(sent == 0);
}

TEST_CASE("snapshot_receiver abandons a transfer whose chunk is out of order or changes id, frame or total",
          "[net][parts][snapshot_transfer]") {
    const auto file = file_of(3 * chunk + 10);
    const auto msgs = chunks_of(5, 300, file);
    REQUIRE(msgs.size() == 4);
    snapshot_receiver rx{wire::limits::max_snapshot};
    REQUIRE(rx.add(msgs[0]));
    REQUIRE(rx.add(msgs[1]));
    wire::snapshot_chunk_msg bad = msgs[2];
    SECTION("an offset that skips a chunk") { bad = msgs[3]; }
    SECTION("an offset already received") { bad = msgs[1]; }
    SECTION("another transfer id") { bad.transfer = 6; }
    SECTION("another frame") { bad.frame = 301; }
    SECTION("another total") { bad.total += 1; }
    CHECK_FALSE(rx.add(bad));
    CHECK_FALSE(rx.complete());
    // Abandoned: the chunks that were next before are refused too, nothing completes.
    CHECK_FALSE(rx.add(msgs[2]));
    CHECK_FALSE(rx.add(msgs[3]));
    CHECK_FALSE(rx.complete());
}

TEST_CASE("snapshot_receiver refuses a transfer of 0 bytes or more than its cap from the first chunk",
          "[net][parts][snapshot_transfer]") {
    const auto file = file_of(2 * chunk + 1);
    auto msgs = chunks_of(9, 10, file);
    SECTION("over the cap") {
        snapshot_receiver rx{2 * chunk}; // one byte short
        CHECK_FALSE(rx.add(msgs[0]));
        CHECK_FALSE(rx.add(msgs[1]));
        CHECK_FALSE(rx.add(msgs[2]));
        CHECK_FALSE(rx.complete());
    }
    SECTION("exactly the cap") {
        snapshot_receiver rx{2 * chunk + 1};
        for (const auto &m : msgs) CHECK(rx.add(m));
        CHECK(rx.complete());
    }
    SECTION("a total of 0") {
        snapshot_receiver rx{wire::limits::max_snapshot};
        wire::snapshot_chunk_msg empty;
        empty.transfer = 9;
        empty.frame = 10;
        CHECK_FALSE(rx.add(empty));
        CHECK_FALSE(rx.complete());
    }
}

// docs/protocol.md, "Snapshot transfers": `total` must be between 1 and the receiver's cap;
// "anything else abandons the transfer" -- also a chunk in the middle of one.
TEST_CASE("snapshot_receiver abandons a transfer in progress when a chunk's total is 0 or over its cap",
          "[net][parts][snapshot_transfer]") {
    const auto file = file_of(3 * chunk);
    const auto msgs = chunks_of(3, 30, file);
    snapshot_receiver rx{3 * chunk};
    REQUIRE(rx.add(msgs[0]));
    wire::snapshot_chunk_msg bad = msgs[1];
    SECTION("total over the cap") { bad.total = 3 * chunk + 1; }
    SECTION("total 0") { bad.total = 0; }
    CHECK_FALSE(rx.add(bad));
    CHECK_FALSE(rx.add(msgs[1]));
    CHECK_FALSE(rx.add(msgs[2]));
    CHECK_FALSE(rx.complete());
}

TEST_CASE("a chunk at offset 0 starts a new transfer over one in progress or abandoned",
          "[net][parts][snapshot_transfer]") {
    const auto a = file_of(3 * chunk, 1);
    const auto b = file_of(2 * chunk + 3, 2);
    const auto ma = chunks_of(1, 100, a);
    const auto mb = chunks_of(2, 200, b);
    snapshot_receiver rx{wire::limits::max_snapshot};
    SECTION("in progress") {
        REQUIRE(rx.add(ma[0]));
        REQUIRE(rx.add(ma[1]));
    }
    SECTION("abandoned") {
        REQUIRE(rx.add(ma[0]));
        REQUIRE_FALSE(rx.add(ma[2]));
    }
    SECTION("the same transfer again from its start") {
        REQUIRE(rx.add(ma[0]));
        REQUIRE(rx.add(ma[1]));
        for (const auto &m : ma) REQUIRE(rx.add(m));
        REQUIRE(rx.complete());
        CHECK(rx.frame() == 100);
        CHECK(std::vector<std::byte>(rx.bytes().begin(), rx.bytes().end()) == a);
        return;
    }
    for (const auto &m : mb) REQUIRE(rx.add(m));
    REQUIRE(rx.complete());
    CHECK(rx.frame() == 200);
    CHECK(std::vector<std::byte>(rx.bytes().begin(), rx.bytes().end()) == b);
    // The rest of the first transfer is refused: it is no longer the current one.
    CHECK_FALSE(rx.add(ma[2]));
}

TEST_CASE("snapshot_receiver::reset abandons the transfer: its next chunk is refused",
          "[net][parts][snapshot_transfer]") {
    const auto file = file_of(2 * chunk);
    const auto msgs = chunks_of(4, 40, file);
    snapshot_receiver rx{wire::limits::max_snapshot};
    REQUIRE(rx.add(msgs[0]));
    rx.reset();
    CHECK(rx.bytes().empty());
    CHECK_FALSE(rx.complete());
    CHECK_FALSE(rx.add(msgs[1]));
    CHECK_FALSE(rx.complete());
    // A completed transfer reset is no longer complete (the client resets after loading it).
    for (const auto &m : msgs) REQUIRE(rx.add(m));
    REQUIRE(rx.complete());
    rx.reset();
    CHECK_FALSE(rx.complete());
}
