// input_queue (net/src/input_queue.hpp): a client's confirmed, used (predicted) and local inputs
// frame by frame (docs/net.md, "The model", "Input delay", "Prediction window and substitution").
#include <catch2/catch.hpp>

#include <retcon/ecs/frame.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <utility>
#include <vector>

#include "input_queue.hpp"

using namespace retcon;
using internal::input_queue;
using arrival = input_queue::arrival;

namespace {

using bytes = std::vector<std::byte>;

bytes b(std::initializer_list<int> v) {
    bytes out;
    for (const int x : v) out.push_back(static_cast<std::byte>(x));
    return out;
}

bytes copy(const std::byte *p, std::size_t n) { return p ? bytes(p, p + n) : bytes{}; }

constexpr std::size_t players = 3, isz = 4;
constexpr auto present = static_cast<std::uint8_t>(slot_flags::present);
constexpr auto replaced = static_cast<std::uint8_t>(slot_flags::replaced);

/// A record of every slot's flags and input, as the confirmed stream carries it.
bytes record(std::initializer_list<int> flags, std::initializer_list<bytes> inputs) {
    bytes r;
    for (const int f : flags) r.push_back(static_cast<std::byte>(f));
    for (const auto &in : inputs) r.insert(r.end(), in.begin(), in.end());
    REQUIRE(r.size() == frame_inputs::record_size(players, isz));
    return r;
}

bytes flags_of(const std::byte *rec) { return copy(rec, players); }
bytes input_of(const std::byte *rec, std::size_t slot) { return copy(rec + players + slot * isz, isz); }

/// Byte 2 of an input is edge-triggered ("fire"): never repeated.
prediction_rule fire_rule() { return prediction_rule::repeat_last().no_repeat_bytes(2, 1); }

/// A queue for 3 players of 4-byte inputs, the local player in slot 1, restarted at @p frame
/// with an input delay of 2.
struct queue_fixture {
    prediction_rule rule = fire_rule();
    input_queue q;
    explicit queue_fixture(frame_t frame = 10, std::size_t capacity = 64, int slot = 1) {
        q.reset(players, isz, capacity, slot, rule);
        q.restart(frame, frame + 2u);
    }
};

} // namespace

TEST_CASE("input_queue is sized by its reset and starts empty at its restart frame", "[net][parts][input_queue]") {
    queue_fixture f{10};
    CHECK(f.q.players() == 3);
    CHECK(f.q.input_size() == 4);
    CHECK(f.q.record_size() == 3 * (1 + 4));
    CHECK(f.q.confirmed_end() == 10);
    CHECK(f.q.local_end() == 12);
    CHECK(f.q.local(12) == nullptr);
    CHECK(f.q.confirmed(10) == nullptr);
    CHECK(f.q.take_first_wrong() == no_frame);
    // A restart forgets what the queue held.
    f.q.add_local(15, b({1, 2, 3, 4}));
    REQUIRE(f.q.confirm(10, record({1, 1, 0}, {b({1, 1, 1, 1}), b({2, 2, 2, 2}), b({0, 0, 0, 0})}).data(), 10) ==
            arrival::stored);
    f.q.restart(40, 43);
    CHECK(f.q.local(12) == nullptr);
    CHECK(f.q.local_end() == 43);
    CHECK(f.q.confirmed(10) == nullptr);
    CHECK(f.q.confirmed_end() == 40);
}

TEST_CASE("input_queue: a local input fills every frame up to its own, never overwrites one recorded",
          "[net][parts][input_queue]") {
    queue_fixture f{10}; // first local input: frame 12
    f.q.add_local(12, b({1, 1, 1, 1}));
    CHECK(copy(f.q.local(12), isz) == b({1, 1, 1, 1}));
    CHECK(f.q.local_end() == 13);
    // The input delay grew by 2: frames 13 and 14 repeat this tick's input.
    f.q.add_local(15, b({2, 2, 2, 2}));
    CHECK(copy(f.q.local(13), isz) == b({2, 2, 2, 2}));
    CHECK(copy(f.q.local(14), isz) == b({2, 2, 2, 2}));
    CHECK(copy(f.q.local(15), isz) == b({2, 2, 2, 2}));
    // The delay shrank: the frame already has an input, this one is dropped.
    f.q.add_local(15, b({3, 3, 3, 3}));
    f.q.add_local(14, b({4, 4, 4, 4}));
    CHECK(copy(f.q.local(15), isz) == b({2, 2, 2, 2}));
    CHECK(copy(f.q.local(14), isz) == b({2, 2, 2, 2}));
    CHECK(f.q.local_end() == 16);
    CHECK(f.q.local(11) == nullptr);
    CHECK(f.q.local(16) == nullptr);
}

TEST_CASE("input_queue: a local input is cut or zero-padded to the input size", "[net][parts][input_queue]") {
    queue_fixture f{0, 8}; // 8 frames: frame 10 reuses frame 2's slot
    f.q.add_local(2, b({9, 9, 9, 9, 9, 9}));
    CHECK(copy(f.q.local(2), isz) == b({9, 9, 9, 9}));
    for (frame_t fr = 3; fr < 10; ++fr) f.q.add_local(fr, b({7, 7, 7, 7}));
    // Two bytes into a slot that held four: the rest is zero, not the old bytes.
    f.q.add_local(10, b({5, 6}));
    CHECK(f.q.local(2) == nullptr);
    CHECK(copy(f.q.local(10), isz) == b({5, 6, 0, 0}));
    f.q.add_local(11, bytes{});
    CHECK(copy(f.q.local(11), isz) == b({0, 0, 0, 0}));
}

TEST_CASE("input_queue: the unacknowledged window starts at the acknowledgement or the restart frame",
          "[net][parts][input_queue]") {
    queue_fixture f{10}; // local inputs from frame 12
    for (frame_t fr = 12; fr <= 20; ++fr) f.q.add_local(fr, b({static_cast<int>(fr), 0, 0, 1}));
    bytes out;
    frame_t first = 0;
    // Nothing acknowledged: from the restart frame; 10 and 11 have no input, so from 12.
    CHECK(f.q.unacknowledged(64, out, first) == 9);
    CHECK(first == 12);
    REQUIRE(out.size() == 9 * isz);
    for (std::size_t i = 0; i < 9; ++i) CHECK(out[i * isz] == std::byte{static_cast<std::uint8_t>(12 + i)});
    f.q.acknowledge(15);
    CHECK(f.q.unacknowledged(64, out, first) == 6);
    CHECK(first == 15);
    CHECK(out.size() == 6 * isz);
    CHECK(out[0] == std::byte{15});
    f.q.acknowledge(13); // an older acknowledgement changes nothing
    CHECK(f.q.unacknowledged(64, out, first) == 6);
    CHECK(first == 15);
    // At most max_frames, the newest.
    CHECK(f.q.unacknowledged(4, out, first) == 4);
    CHECK(first == 17);
    REQUIRE(out.size() == 4 * isz);
    CHECK(out[0] == std::byte{17});
    CHECK(out[3 * isz] == std::byte{20});
    // Everything acknowledged: an empty window.
    f.q.acknowledge(21);
    CHECK(f.q.unacknowledged(64, out, first) == 0);
    CHECK(out.empty());
    // After a restart the old acknowledgement is gone and nothing before the restart is sent.
    f.q.restart(30, 32);
    f.q.add_local(33, b({1, 2, 3, 4}));
    CHECK(f.q.unacknowledged(64, out, first) == 2);
    CHECK(first == 32);
}

TEST_CASE("input_queue: acknowledged past its newest input (behind the server), the client still sends it",
          "[net][parts][input_queue]") {
    // The server acknowledges every frame already due, sent or not: an acknowledgement past the
    // newest local input means the client runs behind the server. That input still goes (late),
    // so the server puts the slot in the game and measures the margin time sync needs.
    queue_fixture f{10}; // local inputs from frame 12
    for (frame_t fr = 12; fr <= 20; ++fr) f.q.add_local(fr, b({static_cast<int>(fr), 0, 0, 1}));
    bytes out;
    frame_t first = 0;
    f.q.acknowledge(40);
    REQUIRE(f.q.unacknowledged(64, out, first) == 1);
    CHECK(first == 20);
    REQUIRE(out.size() == isz);
    CHECK(out[0] == std::byte{20});
    // Acknowledged exactly up to it: the server holds everything, nothing goes.
    f.q.restart(50, 52);
    f.q.add_local(55, b({1, 2, 3, 4}));
    f.q.acknowledge(56);
    CHECK(f.q.unacknowledged(64, out, first) == 0);
    CHECK(out.empty());
    // No local input yet (right after a restart): nothing to send, however far the acknowledgement.
    f.q.restart(60, 62);
    f.q.acknowledge(90);
    CHECK(f.q.unacknowledged(64, out, first) == 0);
    CHECK(out.empty());
}

TEST_CASE("input_queue: the unacknowledged window starts after the last frame no longer held",
          "[net][parts][input_queue]") {
    queue_fixture f{0, 8}; // local inputs from frame 2, 8 held
    for (frame_t fr = 2; fr <= 19; ++fr) f.q.add_local(fr, b({static_cast<int>(fr), 0, 0, 0}));
    bytes out;
    frame_t first = 0;
    CHECK(f.q.unacknowledged(64, out, first) == 8);
    CHECK(first == 12);
    REQUIRE(out.size() == 8 * isz);
    for (std::size_t i = 0; i < 8; ++i) CHECK(out[i * isz] == std::byte{static_cast<std::uint8_t>(12 + i)});
}

TEST_CASE("input_queue::confirm says stored, known or too far", "[net][parts][input_queue]") {
    queue_fixture f{10, 64};
    const auto r = record({1, 1, 1}, {b({1, 0, 0, 0}), b({2, 0, 0, 0}), b({3, 0, 0, 0})});
    CHECK(f.q.confirm(9, r.data(), 10) == arrival::known); // before the restart frame
    CHECK(f.q.confirm(10, r.data(), 10) == arrival::stored);
    CHECK(f.q.confirm(10, r.data(), 10) == arrival::known);
    CHECK(copy(f.q.confirmed(10), r.size()) == r);
    // 64 frames held, 8 kept spare: from confirmed_end + 56 on it is too far.
    CHECK(f.q.confirm(10 + 56, r.data(), 10) == arrival::too_far);
    CHECK_FALSE(f.q.is_confirmed(66));
    CHECK(f.q.confirm(10 + 55, r.data(), 10) == arrival::stored);
    CHECK(f.q.is_confirmed(65));
    CHECK(f.q.confirmed_end() == 10); // confirm alone does not move the end
    f.q.advance_confirmed([](frame_t, const std::byte *) {});
    CHECK(f.q.confirmed_end() == 11);
    CHECK(f.q.confirm(10, r.data(), 10) == arrival::known);
    // The limit moves with the confirmed end.
    CHECK(f.q.confirm(11 + 56, r.data(), 10) == arrival::too_far);
}

TEST_CASE("input_queue: a confirmed record that differs from the one simulated is the first wrong frame",
          "[net][parts][input_queue]") {
    queue_fixture f{0};
    std::vector<bytes> used;
    for (frame_t fr = 0; fr < 5; ++fr) used.push_back(copy(f.q.inputs_for(fr), f.q.record_size()));
    const frame_t simulated_end = 5;
    bytes other = used[0];
    other[players] ^= std::byte{0x40}; // slot 0's first input byte
    SECTION("confirmed as used: nothing to roll back") {
        for (frame_t fr = 0; fr < 5; ++fr) REQUIRE(f.q.confirm(fr, used[fr].data(), simulated_end) == arrival::stored);
        CHECK(f.q.take_first_wrong() == no_frame);
    }
    SECTION("the earliest differing frame wins, taking it clears it") {
        CHECK(f.q.confirm(3, other.data(), simulated_end) == arrival::stored);
        CHECK(f.q.confirm(2, other.data(), simulated_end) == arrival::stored);
        CHECK(f.q.confirm(4, other.data(), simulated_end) == arrival::stored);
        CHECK(f.q.confirm(1, used[1].data(), simulated_end) == arrival::stored);
        CHECK(f.q.take_first_wrong() == 2);
        CHECK(f.q.take_first_wrong() == no_frame);
    }
    SECTION("a flag alone makes a frame wrong") {
        bytes flagged = used[1];
        flagged[0] |= std::byte{replaced};
        CHECK(f.q.confirm(1, flagged.data(), simulated_end) == arrival::stored);
        CHECK(f.q.take_first_wrong() == 1);
    }
    SECTION("frames not simulated yet are never wrong") {
        CHECK(f.q.confirm(5, other.data(), simulated_end) == arrival::stored);
        CHECK(f.q.confirm(9, other.data(), simulated_end) == arrival::stored);
        CHECK(f.q.take_first_wrong() == no_frame);
        // Simulated later, they use the confirmed record: nothing to correct.
        CHECK(copy(f.q.inputs_for(5), f.q.record_size()) == other);
    }
    SECTION("a simulated frame whose used record is no longer held counts as wrong") {
        queue_fixture g{0};
        const auto r = record({1, 1, 1}, {b({1, 0, 0, 0}), b({2, 0, 0, 0}), b({3, 0, 0, 0})});
        CHECK(g.q.confirm(0, r.data(), 1) == arrival::stored);
        CHECK(g.q.take_first_wrong() == 0);
    }
}

TEST_CASE("input_queue::advance_confirmed walks the contiguous confirmed frames in order and stops at a gap",
          "[net][parts][input_queue]") {
    queue_fixture f{10};
    auto rec_for = [](frame_t fr) {
        return record({1, 1, 1}, {b({static_cast<int>(fr), 0, 0, 0}), b({0, 0, 0, 0}), b({0, 0, 0, 0})});
    };
    for (const frame_t fr : {13u, 11u, 10u, 14u}) REQUIRE(f.q.confirm(fr, rec_for(fr).data(), 10) == arrival::stored);
    std::vector<std::pair<frame_t, bytes>> seen;
    const auto note = [&](frame_t fr, const std::byte *rec) { seen.emplace_back(fr, copy(rec, f.q.record_size())); };
    f.q.advance_confirmed(note);
    REQUIRE(seen.size() == 2);
    CHECK(seen[0].first == 10);
    CHECK(seen[0].second == rec_for(10));
    CHECK(seen[1].first == 11);
    CHECK(seen[1].second == rec_for(11));
    CHECK(f.q.confirmed_end() == 12);
    CHECK(f.q.is_confirmed(13)); // held past the gap
    seen.clear();
    f.q.advance_confirmed(note); // nothing new
    CHECK(seen.empty());
    REQUIRE(f.q.confirm(12, rec_for(12).data(), 10) == arrival::stored);
    f.q.advance_confirmed(note);
    REQUIRE(seen.size() == 3);
    CHECK(seen[0].first == 12);
    CHECK(seen[1].first == 13);
    CHECK(seen[2].first == 14);
    CHECK(seen[2].second == rec_for(14));
    CHECK(f.q.confirmed_end() == 15);
}

TEST_CASE("input_queue predictions: the local slot plays its own input, other slots repeat their last confirmed one",
          "[net][parts][input_queue]") {
    queue_fixture f{0}; // local slot 1, local inputs from frame 2
    f.q.add_local(2, b({0x21, 0x22, 0x23, 0x24}));
    f.q.add_local(3, b({0x31, 0x32, 0x33, 0x34}));

    // Before any confirmed record: only the local slot is present; everything else is zero.
    const std::byte *r0 = f.q.inputs_for(0);
    CHECK(flags_of(r0) == b({0, present, 0}));
    CHECK(input_of(r0, 0) == b({0, 0, 0, 0}));
    CHECK(input_of(r0, 1) == b({0, 0, 0, 0})); // no local input for frame 0 yet
    CHECK(input_of(r0, 2) == b({0, 0, 0, 0}));
    // The local slot's own input is played as recorded, the edge-triggered byte included.
    const std::byte *r2 = f.q.inputs_for(2);
    CHECK(flags_of(r2) == b({0, present, 0}));
    CHECK(input_of(r2, 1) == b({0x21, 0x22, 0x23, 0x24}));

    // Frame 0 confirmed: slot 0 present and replaced by the server, slot 1 present, slot 2 empty.
    const auto c0 = record({present | replaced, present, 0}, {b({1, 2, 3, 4}), b({5, 6, 7, 8}), b({0, 0, 0, 0})});
    REQUIRE(f.q.confirm(0, c0.data(), 4) == arrival::stored);
    f.q.advance_confirmed([](frame_t, const std::byte *) {});
    // A confirmed frame is simulated with its record as it is.
    CHECK(copy(f.q.inputs_for(0), f.q.record_size()) == c0);
    // Frame 1: no local input either, so the local slot is predicted from its confirmed input.
    const std::byte *r1 = f.q.inputs_for(1);
    CHECK(flags_of(r1) == b({present, present, 0})); // presence carried over, "replaced" not
    CHECK(input_of(r1, 0) == b({1, 2, 0, 4}));       // repeated but for the edge-triggered byte
    CHECK(input_of(r1, 1) == b({5, 6, 0, 8}));
    CHECK(input_of(r1, 2) == b({0, 0, 0, 0}));
    const std::byte *r3 = f.q.inputs_for(3);
    CHECK(flags_of(r3) == b({present, present, 0}));
    CHECK(input_of(r3, 0) == b({1, 2, 0, 4}));
    CHECK(input_of(r3, 1) == b({0x31, 0x32, 0x33, 0x34}));

    // A slot that joins in the confirmed stream is predicted present from then on; one that
    // leaves, absent. The source is the newest confirmed frame without a gap before it.
    const auto c1 = record({0, present, present}, {b({0, 0, 0, 0}), b({5, 6, 7, 8}), b({9, 10, 11, 12})});
    const auto c3 = record({present, present, present}, {b({7, 7, 7, 7}), b({5, 6, 7, 8}), b({8, 8, 8, 8})});
    REQUIRE(f.q.confirm(1, c1.data(), 4) == arrival::stored);
    REQUIRE(f.q.confirm(3, c3.data(), 4) == arrival::stored); // past a gap at 2
    f.q.advance_confirmed([](frame_t, const std::byte *) {});
    REQUIRE(f.q.confirmed_end() == 2);
    const std::byte *r4 = f.q.inputs_for(4);
    CHECK(flags_of(r4) == b({0, present, present}));
    CHECK(input_of(r4, 0) == b({0, 0, 0, 0}));
    CHECK(input_of(r4, 2) == b({9, 10, 0, 12}));
}

TEST_CASE("input_queue predictions for a spectator: every slot from the last confirmed record",
          "[net][parts][input_queue]") {
    queue_fixture f{0, 64, -1};
    f.q.add_local(5, b({1, 1, 1, 1})); // even if a spectator recorded inputs, none would be played
    const auto c0 = record({present, present, 0}, {b({1, 2, 3, 4}), b({5, 6, 7, 8}), b({0, 0, 0, 0})});
    REQUIRE(f.q.confirm(0, c0.data(), 0) == arrival::stored);
    f.q.advance_confirmed([](frame_t, const std::byte *) {});
    const std::byte *r = f.q.inputs_for(3);
    CHECK(flags_of(r) == b({present, present, 0}));
    CHECK(input_of(r, 0) == b({1, 2, 0, 4}));
    CHECK(input_of(r, 1) == b({5, 6, 0, 8}));
}

TEST_CASE("input_queue: after a restart, predictions start from zero inputs, not the bytes before the snapshot",
          "[net][parts][input_queue]") {
    queue_fixture f;
    const auto r = record({present, present, present}, {b({9, 9, 9, 9}), b({8, 8, 8, 8}), b({7, 7, 7, 7})});
    REQUIRE(f.q.confirm(10, r.data(), 10) == arrival::stored);
    f.q.advance_confirmed([](frame_t, const std::byte *) {});
    f.q.restart(50, 52);
    const std::byte *p = f.q.inputs_for(50); // nothing confirmed, no local input for 50 yet
    CHECK(flags_of(p) == b({0, present, 0}));
    CHECK(input_of(p, 0) == b({0, 0, 0, 0}));
    CHECK(input_of(p, 1) == b({0, 0, 0, 0}));
    CHECK(input_of(p, 2) == b({0, 0, 0, 0}));
}
