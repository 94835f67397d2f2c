// confirmed_stream (net/src/confirmed_stream.hpp): the server's confirmed records kept for
// resending, and the confirmed message of a run of them for one client (docs/protocol.md, message 5 `confirmed`).
#include <catch2/catch.hpp>

#include <retcon/net/protocol.hpp>

#include <cstddef>
#include <span>
#include <vector>

#include "confirmed_stream.hpp"
#include "server_connection.hpp"

using namespace retcon;
using internal::confirmed_stream;
using internal::server_connection;

namespace {

constexpr std::size_t players = 2, isz = 4, rec = players * (1u + isz);

/// Fills frames [from, to) with records whose bytes say their frame.
void confirm(confirmed_stream &s, frame_t from, frame_t to) {
    for (frame_t f = from; f < to; ++f) {
        std::byte *r = s.put(f);
        for (std::size_t i = 0; i < rec; ++i) r[i] = std::byte{static_cast<std::uint8_t>(f + i)};
    }
}

/// Decodes @p bytes as a confirmed message, its base (if any) taken from @p s.
wire::confirmed_msg decoded(const confirmed_stream &s, const std::vector<std::byte> &bytes) {
    wire::confirmed_msg m;
    REQUIRE(wire::decode_header(bytes, m).ok());
    const std::byte *base = m.base ? s.history().get(m.first_frame - 1u) : nullptr;
    REQUIRE(
        wire::decode(bytes, isz, base ? std::span<const std::byte>(base, rec) : std::span<const std::byte>{}, m).ok());
    return m;
}

server_connection joined_at(frame_t frame) {
    server_connection c{1};
    c.connected("", 0);
    c.activate(0, frame, 0, 0);
    c.snapshot_sent(frame, 0);
    return c;
}

} // namespace

TEST_CASE("confirmed_stream: a run of frames from the first unacknowledged, coded against the one before it",
          "[net][parts]") {
    confirmed_stream s;
    s.reset(players, isz, 256);
    CHECK(s.history().capacity() == 256u);
    confirm(s, 0, 40);
    server_connection c = joined_at(10);
    std::vector<std::byte> out;

    // From its snapshot's frame: no base (the client has no record before it).
    s.encode(c, 10, 40, 37, 0, out);
    auto m = decoded(s, out);
    CHECK(m.first_frame == 10u);
    CHECK(m.base == 0);
    CHECK(m.server_frame == 40u);
    CHECK(m.ack_input == 37u);
    CHECK(m.players == players);
    REQUIRE(m.count == std::min<std::uint32_t>(30u, s.max_frames_per_packet()));
    for (std::uint32_t k = 0; k < m.count; ++k)
        CHECK(std::equal(m.frames.begin() + static_cast<std::ptrdiff_t>(k * rec),
                         m.frames.begin() + static_cast<std::ptrdiff_t>((k + 1u) * rec), s.history().get(10u + k)));
    CHECK(c.stats().confirmed_frames == 1u);
    CHECK(c.stats().current_frame == 40u);

    // Past it: coded against the record before the run.
    s.encode(c, 38, 40, 40, 0, out);
    m = decoded(s, out);
    CHECK(m.base == 1);
    CHECK(m.count == 2u);
    CHECK(std::equal(m.frames.begin(), m.frames.begin() + static_cast<std::ptrdiff_t>(rec), s.history().get(38)));
}

TEST_CASE("confirmed_stream: a client is hopeless when its frames are nearly gone from the history", "[net][parts]") {
    confirmed_stream s;
    s.reset(players, isz, 100); // rounded up to 128
    REQUIRE(s.history().capacity() == 128u);
    CHECK_FALSE(s.hopeless(1000 - 120, 1000));
    CHECK(s.hopeless(1000 - 121, 1000));
}

TEST_CASE("confirmed_stream: the history holds two packets at least, a packet stays under the MTU limit",
          "[net][parts]") {
    confirmed_stream small;
    small.reset(1, 4, 1); // records of 5 bytes: as many as a packet may carry
    CHECK(small.history().capacity() >= 2u * wire::limits::max_frames_per_packet);
    CHECK(small.max_frames_per_packet() == wire::limits::max_frames_per_packet);
    confirmed_stream big;
    big.reset(8, 200, 256); // records of 1608 bytes: one a packet
    CHECK(big.max_frames_per_packet() == 1u);
}
