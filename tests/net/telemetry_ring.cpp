// telemetry_ring (net/src/telemetry_ring.hpp): the last N frames of a session's telemetry, keyed
// by frame, read out oldest first (docs/net.md, "Telemetry").
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <vector>

#include "telemetry_ring.hpp"

using namespace retcon;
using internal::telemetry_ring;

namespace {

/// The frames of the entries @p r reads into a span of @p room entries, oldest first.
std::vector<frame_t> frames_read(const telemetry_ring<frame_telemetry> &r, std::size_t room) {
    std::vector<frame_telemetry> out(room);
    out.resize(r.read(out));
    std::vector<frame_t> frames;
    for (const auto &e : out) frames.push_back(e.frame);
    return frames;
}

/// @p r's entry of @p frame, opened (the test fails if the ring gives none).
template<class Entry>
Entry &opened(telemetry_ring<Entry> &r, frame_t frame) {
    static Entry none;
    Entry *e = r.open(frame);
    REQUIRE(e != nullptr);
    return e ? *e : none;
}

/// @p r's entry of @p frame, which the window must hold.
frame_telemetry &found(telemetry_ring<frame_telemetry> &r, frame_t frame) {
    static frame_telemetry none;
    frame_telemetry *e = r.find(frame);
    REQUIRE(e != nullptr);
    return e ? *e : none;
}

} // namespace

TEST_CASE("a telemetry_ring of 0 frames keeps nothing", "[net][parts][telemetry]") {
    telemetry_ring<frame_telemetry> r;
    r.reset(0);
    CHECK_FALSE(r.enabled());
    CHECK(r.capacity() == 0);
    CHECK(r.open(3) == nullptr);
    CHECK(r.find(3) == nullptr);
    std::array<frame_telemetry, 4> out{};
    CHECK(r.read(out) == 0);
}

TEST_CASE("a telemetry_ring reads the last N frames oldest first", "[net][parts][telemetry]") {
    telemetry_ring<frame_telemetry> r;
    r.reset(4);
    CHECK(frames_read(r, 4).empty()); // nothing opened yet
    for (frame_t f = 10; f < 15; ++f) opened(r, f).resimulated = f * 2u;
    CHECK(frames_read(r, 4) == std::vector<frame_t>{11, 12, 13, 14});
    std::array<frame_telemetry, 8> out{};
    REQUIRE(r.read(out) == 4);
    for (std::size_t i = 0; i < 4; ++i) CHECK(out[i].resimulated == out[i].frame * 2u);
    // Less room than entries: the newest ones.
    CHECK(frames_read(r, 2) == std::vector<frame_t>{13, 14});
    CHECK(frames_read(r, 0).empty());
}

TEST_CASE("a telemetry_ring's window near frame 0 and with gaps holds only the frames opened",
          "[net][parts][telemetry]") {
    telemetry_ring<frame_telemetry> r;
    r.reset(8);
    r.open(0);
    r.open(1);
    CHECK(frames_read(r, 8) == std::vector<frame_t>{0, 1});
    r.open(5);
    r.open(9); // 1 left the window (2..9); slot 1 now holds 9
    CHECK(frames_read(r, 8) == std::vector<frame_t>{5, 9});
    CHECK(r.find(1) == nullptr);
    CHECK(r.find(3) == nullptr); // in the window, never opened
    CHECK(r.find(5) != nullptr);
}

TEST_CASE("a telemetry_ring adds a later open of the newest frame to its entry, and starts every other frame afresh",
          "[net][parts][telemetry]") {
    telemetry_ring<frame_telemetry> r;
    r.reset(16);
    opened(r, 20).stalls = 1;
    ++opened(r, 20).stalls; // a second tick on the same frame (a stall, then the advance)
    CHECK(found(r, 20).stalls == 2);
    opened(r, 21).stalls = 5;
    // Back to an earlier frame (a resynchronisation): a fresh entry, and the frames above the
    // new newest one are no longer read.
    const frame_telemetry &again = opened(r, 20);
    CHECK(again.stalls == 0);
    CHECK(again.frame == 20);
    CHECK(r.find(21) == nullptr);
    CHECK(frames_read(r, 16) == std::vector<frame_t>{20});
    // no_frame is never a frame.
    CHECK(r.open(no_frame) == nullptr);
    CHECK(r.find(no_frame) == nullptr);
}

TEST_CASE("a telemetry_ring updates an entry in place while the window holds it", "[net][parts][telemetry]") {
    telemetry_ring<frame_telemetry> r;
    r.reset(4);
    for (frame_t f = 100; f < 104; ++f) r.open(f);
    found(r, 100).confirmed = true; // confirmed later, while still kept
    r.open(104);                    // 100 leaves the window
    CHECK(r.find(100) == nullptr);
    CHECK(r.find(105) == nullptr); // not opened yet
    std::array<frame_telemetry, 4> out{};
    REQUIRE(r.read(out) == 4);
    CHECK(out[0].frame == 101);
    CHECK_FALSE(out[0].confirmed);
    found(r, 101).confirmed = true;
    REQUIRE(r.read(out) == 4);
    CHECK(out[0].confirmed);
}

TEST_CASE("a telemetry_ring keeps the server's record types too", "[net][parts][telemetry]") {
    telemetry_ring<server_client_telemetry> r;
    r.reset(2);
    opened(r, 7).margin_ms = -3;
    opened(r, 8).present = true;
    std::array<server_client_telemetry, 2> out{};
    REQUIRE(r.read(out) == 2);
    CHECK(out[0].frame == 7);
    CHECK(out[0].margin_ms == -3);
    CHECK(out[1].present);
}

TEST_CASE("telemetry durations and byte deltas saturate instead of wrapping", "[net][parts][telemetry]") {
    CHECK(internal::telemetry_span_us(100, 350) == 250);
    CHECK(internal::telemetry_span_us(350, 100) == 0); // a clock that stepped back
    CHECK(internal::telemetry_span_us(0, std::uint64_t{1} << 40) == 0xffffffffu);
    std::uint64_t last = 10;
    CHECK(internal::telemetry_delta(25, last) == 15);
    CHECK(last == 25);
    CHECK(internal::telemetry_delta(20, last) == 0); // a total that went down (a new holder)
    CHECK(last == 20);
    CHECK(internal::telemetry_delta(std::uint64_t{1} << 40, last) == 0xffffffffu);
}

TEST_CASE("the telemetry clock is the game's function when it gives one", "[net][parts][telemetry]") {
    std::uint64_t fake = 41;
    const telemetry_clock clock{[](void *c) { return ++*static_cast<std::uint64_t *>(c); }, &fake};
    CHECK(internal::telemetry_now_us(clock) == 42);
    CHECK(internal::telemetry_now_us(clock) == 43);
    // Without one: steady_clock, which never goes back.
    const std::uint64_t a = internal::telemetry_now_us(telemetry_clock{});
    CHECK(internal::telemetry_now_us(telemetry_clock{}) >= a);
}
