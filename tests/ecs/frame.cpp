// The frame vocabulary: frame numbers, slot flags, input_record_size, frame_inputs,
// frame_record, frame_inputs_buffer and prediction_rule (docs/frames.md).
#include "common/misuse.hpp"

#include <retcon/ecs/frame.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace retcon;

namespace frame_test {

struct pad_input {
    std::int8_t turn;
    std::uint8_t fire;
    std::uint16_t aim;
};
RETCON_COMPONENT(pad_input, turn, fire, aim);

struct wide_input {
    std::uint32_t a, b;
};
RETCON_COMPONENT(wide_input, a, b);

} // namespace frame_test

using frame_test::pad_input;
using frame_test::wide_input;

namespace {
std::vector<std::byte> bytes_of(const pad_input &in) {
    std::vector<std::byte> b(sizeof in);
    std::memcpy(b.data(), &in, sizeof in);
    return b;
}
} // namespace

TEST_CASE("frame numbers are 32-bit, to_frame refuses what no match reaches", "[frame]") {
    STATIC_REQUIRE(sizeof(frame_t) == 4);
    STATIC_REQUIRE(no_frame == 0xFFFFFFFFu);
    STATIC_REQUIRE(max_frame == 0xFFFFFFFEu);

    const auto zero = to_frame(0);
    REQUIRE(zero.ok());
    CHECK(*zero == 0u);
    const auto last = to_frame(std::uint64_t{max_frame});
    REQUIRE(last.ok());
    CHECK(*last == max_frame);

    for (const std::uint64_t bad : {std::uint64_t{no_frame}, std::uint64_t{1} << 32, ~std::uint64_t{0}}) {
        const auto r = to_frame(bad);
        REQUIRE_FALSE(r.ok());
        CHECK(r.code() == errc::corrupt);
        CHECK(r.err().context.empty()); // the static form: nothing allocated
        CHECK_THAT(r.message(), Catch::Contains("frame number"));
    }
}

TEST_CASE("slot_flags combine and test bit by bit", "[frame]") {
    const slot_flags both = slot_flags::present | slot_flags::replaced;
    CHECK(has(both, slot_flags::present));
    CHECK(has(both, slot_flags::replaced));
    CHECK(has(slot_flags::present, slot_flags::present));
    CHECK_FALSE(has(slot_flags::present, slot_flags::replaced));
    CHECK_FALSE(has(slot_flags::none, slot_flags::present));
    CHECK(has(slot_flags::none, slot_flags::none));
    CHECK(static_cast<std::uint8_t>(both) == slot_flags_mask);
}

TEST_CASE("known_flags and first_unknown_flags find bits beyond present and replaced", "[frame]") {
    CHECK(known_flags(slot_flags::none));
    CHECK(known_flags(slot_flags::present | slot_flags::replaced));
    CHECK_FALSE(known_flags(static_cast<slot_flags>(4)));
    CHECK_FALSE(known_flags(static_cast<slot_flags>(0x81)));
    // Three slots, one byte of input each: flags 1, 3, 1 then inputs.
    std::array<std::byte, 6> record{std::byte{1}, std::byte{3}, std::byte{1}, std::byte{7}, std::byte{8}, std::byte{9}};
    const frame_inputs good{5, 3, 1, record.data()};
    CHECK(good.first_unknown_flags() == 3); // players(): every slot's flags are known
    record[1] = std::byte{0x13};
    record[2] = std::byte{0x40};
    const frame_inputs bad{5, 3, 1, record.data()};
    CHECK(bad.first_unknown_flags() == 1); // the first bad slot, not a later one
}

TEST_CASE("frame_inputs reads flags and inputs from one record", "[frame]") {
    // Record layout: 3 flag bytes, then 3 inputs of 4 bytes.
    std::array<std::byte, frame_inputs::record_size(3, sizeof(pad_input))> record{};
    STATIC_REQUIRE(record.size() == 15);
    record[0] = std::byte{1}; // present
    record[1] = std::byte{0}; // absent
    record[2] = std::byte{3}; // present and replaced
    const pad_input p0{-1, 1, 300};
    const pad_input p2{5, 0, 7};
    std::memcpy(record.data() + 3, &p0, sizeof p0);
    std::memcpy(record.data() + 3 + 2 * sizeof(pad_input), &p2, sizeof p2);

    const frame_inputs in{42, 3, sizeof(pad_input), record.data()};
    CHECK(in.frame() == 42u);
    CHECK(in.players() == 3);
    CHECK(in.input_size() == sizeof(pad_input));

    CHECK(in.flags(0) == slot_flags::present);
    CHECK(in.present(0));
    CHECK_FALSE(in.replaced(0));
    CHECK(in.flags(1) == slot_flags::none);
    CHECK_FALSE(in.present(1));
    CHECK_FALSE(in.replaced(1));
    CHECK(in.present(2));
    CHECK(in.replaced(2));

    REQUIRE(in.input(0).size() == sizeof(pad_input));
    CHECK(in.input(0).data() == record.data() + 3);
    CHECK(in.input(2).data() == record.data() + 3 + 2 * sizeof(pad_input));
    const pad_input r0 = in.get<pad_input>(0);
    CHECK(r0.turn == -1);
    CHECK(r0.fire == 1);
    CHECK(r0.aim == 300);
    CHECK(in.get<pad_input>(2).aim == 7);
    CHECK(in.get<pad_input>(1).aim == 0);

    CHECK(in.record().data() == record.data());
    CHECK(in.record().size() == record.size());
}

TEST_CASE("input_record_size: a flag byte per slot, then each slot's input", "[frame]") {
    STATIC_REQUIRE(input_record_size(3, 4) == 15);
    STATIC_REQUIRE(input_record_size(1, 0) == 1);
    STATIC_REQUIRE(input_record_size(0, 8) == 0);
    STATIC_REQUIRE(input_record_size(32, 255) == 8192);
    STATIC_REQUIRE(frame_inputs::record_size(5, 3) == input_record_size(5, 3));
    const frame_inputs_buffer buf{4, 6};
    CHECK(buf.record().size() == input_record_size(4, 6));
    CHECK(buf.view(0).record().size() == input_record_size(4, 6));
}

TEST_CASE("frame_record writes flags and inputs where frame_inputs reads them", "[frame]") {
    std::array<std::byte, input_record_size(3, sizeof(pad_input))> record{};
    record.fill(std::byte{0xEE});
    const frame_record w{3, sizeof(pad_input), record.data()};
    CHECK(w.players() == 3);
    CHECK(w.input_size() == sizeof(pad_input));
    CHECK(w.record().data() == record.data());
    CHECK(w.record().size() == record.size());

    w.set_flags(0, slot_flags::present);
    const pad_input p0{-7, 1, 500};
    std::memcpy(w.input(0).data(), &p0, sizeof p0);
    w.clear(1);
    w.set_flags(2, slot_flags::present | slot_flags::replaced);
    std::memset(w.input(2).data(), 0x11, sizeof(pad_input));

    // The bytes are exactly flags then inputs.
    CHECK(record[0] == std::byte{1});
    CHECK(record[1] == std::byte{0});
    CHECK(record[2] == std::byte{3});
    for (std::size_t i = 0; i < sizeof(pad_input); ++i) {
        CHECK(record[3 + sizeof(pad_input) + i] == std::byte{0}); // slot 1 cleared
        CHECK(record[3 + 2 * sizeof(pad_input) + i] == std::byte{0x11});
    }
    const frame_inputs in = w.view(12);
    CHECK(in.frame() == 12u);
    CHECK(in.get<pad_input>(0).aim == 500);
    CHECK(in.get<pad_input>(0).turn == -7);
    CHECK(w.flags(0) == slot_flags::present);
    CHECK_FALSE(in.present(1));
    CHECK(in.replaced(2));
    CHECK(in.record().data() == record.data());

    // frame_inputs_buffer writes through the same view.
    frame_inputs_buffer buf{3, sizeof(pad_input)};
    buf.writable().set_flags(1, slot_flags::present);
    std::memcpy(buf.writable().input(1).data(), &p0, sizeof p0);
    CHECK(buf.view(0).present(1));
    CHECK(buf.view(0).get<pad_input>(1).aim == 500);
}

TEST_CASE("frame_record: a slot out of range is misuse and writes nothing", "[frame][misuse]") {
    std::array<std::byte, input_record_size(2, sizeof(pad_input)) + 4> bytes{};
    const frame_record w{2, sizeof(pad_input), bytes.data()};
    REQUIRE_MISUSE(w.set_flags(2, slot_flags::present), "frame_record: slot 2 is out of range (2 slots)");
    REQUIRE_MISUSE((void)w.input(3), "slot 3 is out of range");
    REQUIRE_MISUSE(w.clear(2), "slot 2");
    REQUIRE_MISUSE((void)w.flags(5), "slot 5");
    for (const std::byte b : bytes) CHECK(b == std::byte{0});
}

TEST_CASE("frame_inputs: a wrong input type or slot is misuse", "[frame][misuse]") {
    std::array<std::byte, frame_inputs::record_size(2, sizeof(pad_input))> record{};
    const frame_inputs in{0, 2, sizeof(pad_input), record.data()};
    REQUIRE_MISUSE((void)in.get<wide_input>(0), "sizeof(T) is 8 but the session's input size is 4");
    REQUIRE_MISUSE((void)in.get<std::uint16_t>(0), "sizeof(T) is 2");
    REQUIRE_MISUSE((void)in.get<pad_input>(2), "slot 2 is out of range (2 slots)");
    REQUIRE_MISUSE((void)in.input(7), "slot 7 is out of range");
    REQUIRE_MISUSE((void)in.flags(2), "slot 2");
    REQUIRE_MISUSE((void)in.present(2), "slot 2");
    REQUIRE_MISUSE((void)in.replaced(2), "slot 2");

    const frame_inputs none{0, 0, sizeof(pad_input), record.data()};
    CHECK(none.record().empty());
    REQUIRE_MISUSE((void)none.flags(0), "slot 0 is out of range (0 slots)");
}

TEST_CASE("frame_inputs_buffer builds a record: set, set_bytes, clear", "[frame]") {
    frame_inputs_buffer buf{3, sizeof(pad_input)};
    CHECK(buf.players() == 3);
    CHECK(buf.input_size() == sizeof(pad_input));
    REQUIRE(buf.record().size() == 15);
    for (const std::byte b : buf.record()) CHECK(b == std::byte{0}); // every slot absent and zero

    buf.set(0, pad_input{1, 1, 10});
    buf.set_bytes(1, bytes_of(pad_input{2, 0, 20}), slot_flags::present | slot_flags::replaced);
    buf.set(2, pad_input{3, 1, 30}, slot_flags::none);
    {
        const frame_inputs in = buf.view(9);
        CHECK(in.frame() == 9u);
        CHECK(in.flags(0) == slot_flags::present);
        CHECK(in.get<pad_input>(0).aim == 10);
        CHECK(in.present(1));
        CHECK(in.replaced(1));
        CHECK(in.get<pad_input>(1).turn == 2);
        CHECK_FALSE(in.present(2));
        CHECK(in.get<pad_input>(2).aim == 30);
        CHECK(in.record().data() == buf.record().data());
    }
    // The record's bytes are exactly flags then inputs.
    const frame_inputs_buffer &cbuf = buf;
    const auto rec = cbuf.record();
    CHECK(rec[0] == std::byte{1});
    CHECK(rec[1] == std::byte{3});
    CHECK(rec[2] == std::byte{0});
    pad_input second{};
    std::memcpy(&second, rec.data() + 3 + sizeof(pad_input), sizeof second);
    CHECK(second.aim == 20);

    buf.clear(1);
    const frame_inputs in = buf.view(10);
    CHECK(in.flags(1) == slot_flags::none);
    for (const std::byte b : in.input(1)) CHECK(b == std::byte{0});
    CHECK(in.get<pad_input>(0).aim == 10); // neighbours untouched
    CHECK(in.get<pad_input>(2).aim == 30);
}

TEST_CASE("frame_inputs_buffer: wrong sizes, slots and flags are misuse", "[frame][misuse]") {
    frame_inputs_buffer buf{2, sizeof(pad_input)};
    buf.set(0, pad_input{1, 2, 3});
    const std::vector<std::byte> before(buf.record().begin(), buf.record().end());

    REQUIRE_MISUSE(buf.set(0, wide_input{1, 2}), "sizeof(T) is 8 but the input size is 4");
    const std::array<std::byte, 3> short_input{};
    REQUIRE_MISUSE(buf.set_bytes(0, short_input), "3 bytes given, the input size is 4");
    REQUIRE_MISUSE(buf.set(2, pad_input{}), "slot 2 is out of range (2 slots)");
    REQUIRE_MISUSE(buf.set_bytes(5, bytes_of(pad_input{})), "slot 5");
    REQUIRE_MISUSE(buf.clear(2), "slot 2");

    // A reported misuse changed nothing.
    CHECK(std::vector<std::byte>(buf.record().begin(), buf.record().end()) == before);
}

TEST_CASE("frame_inputs_buffer: flag bits outside slot_flags are misuse", "[frame][misuse]") {
    frame_inputs_buffer buf{2, sizeof(pad_input)};
    REQUIRE_MISUSE(buf.set(1, pad_input{}, static_cast<slot_flags>(4)), "outside slot_flags");
    REQUIRE_MISUSE(buf.set_bytes(0, bytes_of(pad_input{}), static_cast<slot_flags>(0x83)), "0x83");
    CHECK(buf.view(0).flags(0) == slot_flags::none);
    CHECK(buf.view(0).flags(1) == slot_flags::none);
}

TEST_CASE("prediction_rule repeats the last input except the no-repeat bytes", "[frame][prediction]") {
    const pad_input last{-3, 1, 0x1234};
    const auto last_bytes = bytes_of(last);

    SECTION("repeat_last copies every byte") {
        const prediction_rule rule = prediction_rule::repeat_last();
        CHECK(rule.mask().empty());
        std::vector<std::byte> out(sizeof(pad_input), std::byte{0xAA});
        rule.predict(last_bytes, out);
        CHECK(out == last_bytes);
    }
    SECTION("no_repeat<Input>(field) clears exactly that field's bytes") {
        const prediction_rule rule = prediction_rule::repeat_last().no_repeat<pad_input>("fire");
        REQUIRE(rule.mask().size() == offsetof(pad_input, fire) + 1);
        CHECK(rule.mask()[0] == 0);
        CHECK(rule.mask()[1] != 0);
        std::vector<std::byte> out(sizeof(pad_input), std::byte{0xAA});
        rule.predict(last_bytes, out);
        pad_input guess{};
        std::memcpy(&guess, out.data(), sizeof guess);
        CHECK(guess.turn == -3);
        CHECK(guess.fire == 0);
        CHECK(guess.aim == 0x1234);
        // Only byte 1 differs from the last input.
        for (std::size_t i = 0; i < out.size(); ++i) CHECK((out[i] != last_bytes[i]) == (i == 1));
    }
    SECTION("a multi-byte field and explicit byte ranges") {
        const prediction_rule rule = prediction_rule::repeat_last().no_repeat<pad_input>("aim").no_repeat_bytes(0, 1);
        std::vector<std::byte> out(sizeof(pad_input));
        rule.predict(last_bytes, out);
        pad_input guess{};
        std::memcpy(&guess, out.data(), sizeof guess);
        CHECK(guess.turn == 0);
        CHECK(guess.fire == 1);
        CHECK(guess.aim == 0);
    }
    SECTION("an unknown field is misuse") {
        REQUIRE_MISUSE((void)prediction_rule::repeat_last().no_repeat<pad_input>("shoot"),
                       "pad_input has no field 'shoot'");
    }
    SECTION("a shorter last input predicts zeros past its end") {
        const prediction_rule rule = prediction_rule::repeat_last();
        std::vector<std::byte> out(sizeof(pad_input), std::byte{0xAA});
        rule.predict(std::span<const std::byte>{last_bytes}.first(2), out);
        CHECK(out[0] == last_bytes[0]);
        CHECK(out[1] == last_bytes[1]);
        CHECK(out[2] == std::byte{0});
        CHECK(out[3] == std::byte{0});
    }
}
