// rollback (net/src/rollback.hpp): restore the first wrong frame and re-simulate up to the
// present, as the client session and the sync test do (docs/net.md, "The model", "Sync test").
#include <catch2/catch.hpp>

#include <common/test_game.hpp>

#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/image.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <vector>

#include "input_queue.hpp"
#include "rollback.hpp"

using namespace retcon;
using namespace retcon::test;
using internal::rollback;

namespace {

constexpr std::size_t players = 2;
constexpr std::size_t isz = sizeof(game_input);
constexpr auto present = static_cast<std::uint8_t>(slot_flags::present);

/// Both players present with the bots' inputs for @p frame (a pure function of the frame).
std::vector<std::byte> true_record(frame_t frame) {
    std::vector<std::byte> r(frame_inputs::record_size(players, isz));
    r[0] = r[1] = std::byte{present};
    for (std::size_t p = 0; p < players; ++p) {
        bot x{7u + p};
        game_input in{};
        for (frame_t f = 0; f <= frame; ++f) in = x.next();
        std::memcpy(r.data() + players + p * isz, &in, isz);
    }
    return r;
}

/// Another future: slot 0 moves right and fires every third frame, slot 1 moves up.
std::vector<std::byte> other_record(frame_t frame) {
    std::vector<std::byte> r(frame_inputs::record_size(players, isz));
    r[0] = r[1] = std::byte{present};
    const game_input in0{1, 0, static_cast<std::uint8_t>(frame % 3 == 0), 0}, in1{0, -1, 0, 0};
    std::memcpy(r.data() + players, &in0, isz);
    std::memcpy(r.data() + players + isz, &in1, isz);
    return r;
}

void step_record(world &w, frame_t frame, const std::byte *record) {
    step_game(w, frame_inputs{frame, players, isz, record});
}

world new_world() {
    world w{game_schema()};
    init_game(w);
    return w;
}

/// Runs frames [0, @p to) with true inputs, saving each start in @p rb (if given); the hash at
/// the start of each frame, then the end, in @p starts.
void run_true(world &w, frame_t to, rollback *rb, std::vector<std::uint64_t> &starts) {
    starts.clear();
    for (frame_t f = 0; f < to; ++f) {
        starts.push_back(hash(w));
        if (rb) rb->save(w, f);
        step_record(w, f, true_record(f).data());
    }
    starts.push_back(hash(w));
}

} // namespace

TEST_CASE("rollback::resimulate restores the start of `from` and re-simulates each frame before `to` in order",
          "[net][parts][rollback]") {
    world w = new_world();
    rollback rb{16};
    std::vector<std::uint64_t> first;
    run_true(w, 12, &rb, first);
    // Re-simulate 5..11 with other inputs: a different future, saved anew.
    std::vector<frame_t> order;
    std::vector<std::uint64_t> resim_starts;
    const auto done = rb.resimulate(w, 5, 12, [&](frame_t f) {
        order.push_back(f);
        resim_starts.push_back(hash(w));
        step_record(w, f, other_record(f).data());
    });
    REQUIRE(done.ok());
    CHECK(*done == 7);
    CHECK(order == std::vector<frame_t>{5, 6, 7, 8, 9, 10, 11});
    REQUIRE(resim_starts.size() == 7);
    CHECK(resim_starts[0] == first[5]); // exactly the world saved at the start of 5
    CHECK(resim_starts[1] != first[6]); // the new inputs made a new future
    // Each frame's start was saved again before it ran: the images are the new future's.
    for (frame_t f = 5; f < 12; ++f) {
        INFO("frame " << f);
        const world_image *img = rb.find(f);
        REQUIRE(img != nullptr);
        CHECK(hash(*img) == resim_starts[f - 5]);
    }
    CHECK(rb.find(12) == nullptr); // the frame after `to` has not started
    CHECK(rb.find(4) != nullptr);  // older starts are kept
    // The world is where simulating the new inputs from scratch would put it.
    world scratch = new_world();
    for (frame_t f = 0; f < 12; ++f) step_record(scratch, f, (f < 5 ? true_record(f) : other_record(f)).data());
    CHECK(hash(w) == hash(scratch));
}

TEST_CASE("rollback::resimulate stops when simulate returns false, counting the frame that ran",
          "[net][parts][rollback]") {
    world w = new_world();
    rollback rb{16};
    std::vector<std::uint64_t> first;
    run_true(w, 10, &rb, first);
    std::vector<frame_t> order;
    const auto done = rb.resimulate(w, 3, 10, [&](frame_t f) {
        order.push_back(f);
        step_record(w, f, true_record(f).data());
        return f != 5;
    });
    REQUIRE(done.ok());
    CHECK(*done == 3);
    CHECK(order == std::vector<frame_t>{3, 4, 5});
    CHECK_FALSE(rb.is_resimulating());
    CHECK(hash(w) == first[6]); // the world after frame 5
    CHECK(rb.find(5) != nullptr);
    CHECK(rb.find(6) == nullptr); // never started again (the restore dropped the old one)
}

TEST_CASE("rollback::resimulate of a frame not held is an error that leaves the world as it was",
          "[net][parts][rollback]") {
    world w = new_world();
    rollback rb{4}; // holds the starts of the last 4 frames
    std::vector<std::uint64_t> first;
    run_true(w, 10, &rb, first);
    const std::uint64_t before = hash(w);
    for (const frame_t from : {frame_t{2}, frame_t{5}, frame_t{10}, frame_t{40}}) {
        INFO("from " << from);
        bool ran = false;
        bool resimulating_seen = false;
        const auto done = rb.resimulate(w, from, 12, [&](frame_t) {
            ran = true;
            resimulating_seen = rb.is_resimulating();
        });
        CHECK_FALSE(done.ok());
        CHECK_FALSE(ran);
        CHECK_FALSE(resimulating_seen);
        CHECK_FALSE(rb.is_resimulating());
        CHECK(hash(w) == before);
    }
    // restore() says the same, and a frame that is held still restores.
    CHECK_FALSE(rb.restore(w, 3).ok());
    CHECK(hash(w) == before);
    REQUIRE(rb.restore(w, 6).ok());
    CHECK(hash(w) == first[6]);
}

TEST_CASE("rollback::is_resimulating is true inside simulate only", "[net][parts][rollback]") {
    world w = new_world();
    rollback rb{8};
    std::vector<std::uint64_t> first;
    run_true(w, 6, &rb, first);
    CHECK_FALSE(rb.is_resimulating());
    int calls = 0, flagged = 0;
    // A simulate that returns nothing runs every frame.
    const auto done = rb.resimulate(w, 2, 6, [&](frame_t f) {
        ++calls;
        flagged += rb.is_resimulating() ? 1 : 0;
        step_record(w, f, true_record(f).data());
    });
    REQUIRE(done.ok());
    CHECK(*done == 4);
    CHECK(calls == 4);
    CHECK(flagged == 4);
    CHECK_FALSE(rb.is_resimulating());
    CHECK(hash(w) == first[6]); // same inputs, deterministic step: the same world
}

TEST_CASE("a client-style rollback of wrong predictions ends at the world of the corrected inputs from scratch",
          "[net][parts][rollback]") {
    // The client's loop (net/src/client_session.cpp): local input recorded input_delay frames
    // ahead, remote inputs predicted, confirmed records arriving a few frames late, and each
    // tick first rolling back to the first wrong frame.
    constexpr frame_t delay = 2, latency = 5, frames = 240;
    const session_config cfg = game_config(players);
    internal::input_queue q;
    q.reset(players, isz, 64, 0, cfg.prediction);
    q.restart(0, delay);
    rollback rb{latency + 3u};
    world w = new_world();
    frame_t current = 0;
    int rollbacks = 0;
    frame_t resimulated = 0;
    const auto simulate = [&](frame_t f) { step_record(w, f, q.inputs_for(f)); };
    const auto roll_back = [&] {
        const frame_t from = q.take_first_wrong();
        if (from == no_frame || from >= current) return;
        const auto done = rb.resimulate(w, from, current, simulate);
        REQUIRE(done.ok());
        ++rollbacks;
        resimulated += *done;
    };
    // The server's record: slot 0's input is what the client recorded (zero before delay).
    const auto server_record = [&](frame_t f) {
        auto r = true_record(f);
        if (f < delay) std::memset(r.data() + players, 0, isz);
        return r;
    };
    const auto confirm_upto = [&](frame_t end) {
        for (frame_t f = q.confirmed_end(); f < end; ++f) {
            const auto r = server_record(f);
            REQUIRE(q.confirm(f, r.data(), current) == internal::input_queue::arrival::stored);
        }
        q.advance_confirmed([](frame_t, const std::byte *) {});
    };
    for (frame_t tick = 0; tick < frames; ++tick) {
        roll_back();
        const auto mine = true_record(current + delay);
        q.add_local(current + delay, std::span<const std::byte>(mine.data() + players, isz));
        rb.save(w, current);
        simulate(current);
        ++current;
        if (current > latency) confirm_upto(current - latency);
    }
    confirm_upto(current);
    roll_back();
    INFO(rollbacks << " rollbacks, " << resimulated << " frames re-simulated");
    CHECK(rollbacks > 10); // the bots change direction: predictions were wrong often
    world scratch = new_world();
    for (frame_t f = 0; f < frames; ++f) step_record(scratch, f, server_record(f).data());
    CHECK(hash(w) == hash(scratch));
    CHECK(q.take_first_wrong() == no_frame);
}

TEST_CASE("rollback::is_resimulating is false again when a re-simulated step throws", "[net][parts][rollback]") {
    world w = new_world();
    rollback rb{8};
    std::vector<std::uint64_t> first;
    run_true(w, 6, &rb, first);
    CHECK_THROWS_AS(rb.resimulate(w, 2, 6,
                                  [](frame_t f) {
                                      if (f == 4) throw std::runtime_error("a step that throws");
                                  }),
                    std::runtime_error);
    CHECK_FALSE(rb.is_resimulating());
}

TEST_CASE("rollback::begin, before and end run resimulate's steps one frame at a time", "[net][parts][rollback]") {
    // A client's step requests hand each re-simulated frame out between before() and the next
    // one (docs/net.md, "Poll mode").
    world w = new_world();
    rollback rb{16};
    std::vector<std::uint64_t> first;
    run_true(w, 12, &rb, first);
    const std::uint64_t before = hash(w);
    // A restore error leaves the world as it was and starts nothing.
    for (const frame_t from : {frame_t{12}, frame_t{40}}) {
        INFO("from " << from);
        CHECK_FALSE(rb.begin(w, from).ok());
        CHECK(hash(w) == before);
        CHECK_FALSE(rb.is_resimulating());
    }
    REQUIRE(rb.begin(w, 5).ok());
    CHECK(rb.is_resimulating());
    CHECK(hash(w) == first[5]);
    CHECK(rb.find(6) == nullptr); // the restore dropped the old future
    std::vector<std::uint64_t> starts;
    {
        const rollback::resimulation guard{rb};
        // The first frame's start is held already: before() leaves it alone (the change below
        // would otherwise be saved as frame 5's start).
        w.resource<ships>().score[0] += 1;
        rb.before(w, 5);
        REQUIRE(rb.find(5) != nullptr);
        CHECK(hash(*rb.find(5)) == first[5]);
        for (frame_t f = 5; f < 12; ++f) {
            INFO("frame " << f);
            if (f != 5) {
                CHECK(rb.find(f) == nullptr);
                rb.before(w, f);
                REQUIRE(rb.find(f) != nullptr); // every later frame's start is saved anew
                CHECK(hash(*rb.find(f)) == hash(w));
            }
            starts.push_back(hash(w));
            CHECK(rb.is_resimulating());
            step_record(w, f, other_record(f).data());
        }
    }
    CHECK_FALSE(rb.is_resimulating()); // the guard ended it when it left scope
    CHECK(rb.find(12) == nullptr);
    for (frame_t f = 6; f < 12; ++f) CHECK(hash(*rb.find(f)) == starts[f - 5]);
    // end() on its own ends it too, and a guard ends it when a step throws.
    REQUIRE(rb.begin(w, 8).ok());
    rb.end();
    CHECK_FALSE(rb.is_resimulating());
    REQUIRE(rb.begin(w, 8).ok());
    CHECK_THROWS_AS(
        [&] {
            const rollback::resimulation guard{rb};
            throw std::runtime_error("a step that throws");
        }(),
        std::runtime_error);
    CHECK_FALSE(rb.is_resimulating());
}
