// slot_inputs (net/src/slot_inputs.hpp): the server's side of the input queue, each slot's
// received inputs and the record it confirms per frame (docs/net.md, "The model", "Prediction
// window and substitution").
#include <catch2/catch.hpp>

#include <retcon/ecs/frame.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "slot_inputs.hpp"

using namespace retcon;
using internal::slot_inputs;

namespace {

constexpr std::size_t players = 3, isz = 2;
constexpr auto present = static_cast<std::uint8_t>(slot_flags::present);
constexpr auto replaced = static_cast<std::uint8_t>(slot_flags::replaced);

std::array<std::byte, isz> in(int a, int b) { return {static_cast<std::byte>(a), static_cast<std::byte>(b)}; }

/// One confirmed record, with every slot connected unless @p connected says otherwise.
struct confirmed {
    std::vector<std::byte> r = std::vector<std::byte>(frame_inputs::record_size(players, isz));
    std::vector<std::size_t> substituted;
    [[nodiscard]] std::uint8_t flag(std::size_t s) const { return static_cast<std::uint8_t>(r[s]); }
    [[nodiscard]] int input(std::size_t s, std::size_t i) const { return static_cast<int>(r[players + s * isz + i]); }
};

confirmed confirm(slot_inputs &q, frame_t f, std::array<bool, players> connected = {true, true, true}) {
    confirmed c;
    // The holder of a connected slot is its slot number + 1 (0: nobody).
    q.confirm(
        f, frame_record{players, isz, c.r.data()}, [&](std::size_t s) { return connected[s] ? s + 1 : std::size_t{0}; },
        [&](std::size_t holder) { c.substituted.push_back(holder - 1); });
    return c;
}

} // namespace

TEST_CASE("slot_inputs: a slot is in the game from its first input's frame (or the server's frame, if later)") {
    const prediction_rule rule;
    slot_inputs q;
    q.reset(players, isz, 64, rule);
    q.note_inputs(0, 12, 10); // inputs ahead of the server: in the game from frame 12
    q.note_inputs(1, 5, 10);  // inputs for frames already past: from the server's frame 10
    for (frame_t f = 12; f < 14; ++f) q.receive(0, f, in(7, 8).data());
    q.receive(1, 10, in(1, 2).data());

    const auto at10 = confirm(q, 10);
    CHECK(at10.flag(0) == 0); // joined at 12: not yet in the game, so not "replaced"
    CHECK(at10.input(0, 0) == 0);
    CHECK(at10.flag(1) == present);
    CHECK(at10.input(1, 0) == 1);
    CHECK(at10.flag(2) == 0); // never sent anything
    CHECK(at10.substituted.empty());

    q.note_inputs(0, 20, 10); // a second note does not move the join frame
    const auto at12 = confirm(q, 12);
    CHECK(at12.flag(0) == present);
    CHECK(at12.input(0, 1) == 8);
}

TEST_CASE("slot_inputs: a missing input is predicted from the slot's last one and flagged replaced") {
    prediction_rule rule;
    rule.no_repeat_bytes(1, 1); // the second byte (a "fire" button) is never repeated
    slot_inputs q;
    q.reset(players, isz, 64, rule);
    q.note_inputs(0, 0, 0);
    q.receive(0, 0, in(5, 1).data());
    CHECK(confirm(q, 0).flag(0) == present);
    const auto at1 = confirm(q, 1); // nothing arrived for frame 1
    CHECK(at1.flag(0) == (present | replaced));
    CHECK(at1.input(0, 0) == 5);
    CHECK(at1.input(0, 1) == 0);
    REQUIRE(at1.substituted == std::vector<std::size_t>{0});
    // The substitute becomes the last input: the next prediction repeats it, not the original.
    q.receive(0, 2, in(9, 9).data());
    CHECK(confirm(q, 2).input(0, 0) == 9);
    const auto at3 = confirm(q, 3);
    CHECK(at3.input(0, 0) == 9);
    CHECK(at3.input(0, 1) == 0);
}

TEST_CASE("slot_inputs: the first copy of an input wins, and first_missing is what the server acknowledges") {
    const prediction_rule rule;
    slot_inputs q;
    q.reset(players, isz, 64, rule);
    q.note_inputs(2, 0, 0);
    q.receive(2, 0, in(1, 1).data());
    q.receive(2, 0, in(2, 2).data()); // a redundant copy of frame 0, different bytes: ignored
    q.receive(2, 1, in(3, 3).data());
    q.receive(2, 3, in(4, 4).data()); // frame 2 missing
    CHECK(q.first_missing(2, 0) == 2);
    CHECK(q.first_missing(2, 3) == 4);
    CHECK(q.first_missing(0, 0) == 0);
    CHECK(confirm(q, 0).input(2, 0) == 1);
}

TEST_CASE("slot_inputs: a disconnected slot confirms flags 0 and zero input, and a new player starts clean") {
    const prediction_rule rule;
    slot_inputs q;
    q.reset(players, isz, 64, rule);
    q.note_inputs(1, 0, 0);
    for (frame_t f = 0; f < 8; ++f) q.receive(1, f, in(6, 6).data());
    CHECK(confirm(q, 0).flag(1) == present);
    const auto gone = confirm(q, 1, {true, false, true});
    CHECK(gone.flag(1) == 0);
    CHECK(gone.input(1, 0) == 0);
    CHECK(gone.substituted.empty());

    q.assign(1); // the slot changes hands: the last player's inputs are not the new one's
    CHECK(q.first_missing(1, 2) == 2);
    CHECK(confirm(q, 2).flag(1) == 0); // not in the game until its own first input
    q.note_inputs(1, 3, 3);
    const auto at3 = confirm(q, 3);
    CHECK(at3.flag(1) == (present | replaced));
    CHECK(at3.input(1, 0) == 0); // predicted from a zero last input, not the old player's 6
}
