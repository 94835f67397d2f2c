// Per-frame telemetry of the sessions (net/include/retcon/net/telemetry.hpp): what client_session
// and server_session keep of each frame, checked against their own totals on seeded matches
// timed with an injected clock (docs/net.md, "Telemetry").
#include <catch2/catch.hpp>

#include <common/sim_match.hpp>

#include <cstdint>
#include <map>
#include <span>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {

/// A virtual microsecond clock that moves only when a test steps a frame (step_us per step), so
/// every duration the sessions keep is exact.
struct fake_clock {
    std::uint64_t now_us = 1;
    std::uint64_t reads = 0;
    static constexpr std::uint64_t step_us = 100;
    telemetry_clock hook() {
        return {[](void *c) {
                    auto &self = *static_cast<fake_clock *>(c);
                    ++self.reads;
                    return self.now_us;
                },
                this};
    }
};

/// The match of these tests, driven in poll mode so each step advances @p clock by step_us.
void run(sim_match &m, fake_clock &clock, int ms) {
    for (int i = 0; i < ms; ++i)
        m.step(
            [&](server_session &s) {
                step_requests requests = s.tick_requests();
                while (const step_request *r = requests.next()) {
                    step_game(*r->target, r->inputs);
                    clock.now_us += fake_clock::step_us;
                }
            },
            [&](std::size_t, client_session &s, const game_input &in) {
                step_requests requests = s.tick_requests(std::as_bytes(std::span{&in, 1}));
                while (const step_request *r = requests.next()) {
                    step_game(*r->target, r->inputs);
                    clock.now_us += fake_clock::step_us;
                }
                return true;
            });
}

template<class Entry, class Read>
std::vector<Entry> read_all(std::size_t capacity, Read &&read) {
    std::vector<Entry> out(capacity);
    out.resize(read(std::span<Entry>{out}));
    return out;
}

const link_conditions lossy_link{40, 10, 0.05, 0.0, 0.02};
const link_conditions slow_link{300, 20, 0.0, 0.0, 0.0}; // beyond the prediction window: stalls

} // namespace

TEST_CASE("a client's telemetry accounts for each rollback, re-simulated frame and stall, timed by the game's clock",
          "[net][telemetry]") {
    const bool slow = GENERATE(false, true);
    INFO((slow ? "slow link (stalls)" : "lossy link (rollbacks)"));
    fake_clock clock;
    const telemetry_options telemetry{.frames = 4096, .clock = clock.hook()};
    sim_match m{31, 2};
    m.use_server_options({.telemetry = telemetry});
    const link_conditions &link = slow ? slow_link : lossy_link;
    auto &a = m.add_client(link, link, {.telemetry = telemetry});
    auto &b = m.add_client(lossy_link, lossy_link, {.telemetry = telemetry});
    run(m, clock, 8000);
    for (auto *c : {&a, &b}) {
        const client_session &s = *c->session;
        REQUIRE(s.state() == client_state::running);
        REQUIRE(s.telemetry_capacity() == 4096);
        const auto entries = read_all<frame_telemetry>(4096, [&](auto out) { return s.telemetry(out); });
        REQUIRE(!entries.empty());
        // The last tick's frame: it advanced past it, or stalled on it.
        CHECK((entries.back().frame + 1u == s.current_frame() ||
               (entries.back().frame == s.current_frame() && entries.back().stalls > 0)));
        std::uint64_t resimulated = 0, stalls = 0, rolled_back = 0;
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const frame_telemetry &e = entries[i];
            INFO("frame " << e.frame);
            if (i > 0) CHECK(e.frame == entries[i - 1].frame + 1u); // one match, no resync: no gap
            resimulated += e.resimulated;
            stalls += e.stalls;
            rolled_back += e.rollback_depth > 0 ? 1u : 0u;
            CHECK(e.rollback_depth <= e.resimulated);
            CHECK(e.resimulate_us == e.resimulated * fake_clock::step_us); // exact: the clock moves only in steps
            CHECK(e.step_us == (e.frame < s.current_frame() ? fake_clock::step_us : 0u));
            CHECK(e.confirmed == (e.frame < s.confirmed_frame()));
            if (e.frame >= s.confirmed_frame()) CHECK_FALSE(e.hash_checked);
            if (e.frame + 2u < s.confirmed_frame()) CHECK(e.hash_checked); // reported with every confirmed frame
            if (e.frame < s.current_frame()) CHECK(e.bytes_out > 0);       // every advancing tick sends inputs
        }
        const session_stats &st = s.stats();
        CHECK(resimulated == st.resimulated);
        CHECK(stalls == st.stall_frames);
        CHECK(rolled_back > 0);
        CHECK(rolled_back <= st.rollbacks);
        CHECK(entries.back().rtt_ms == Approx(st.rtt_ms).epsilon(0.1)); // as of the tick; polls since may move it
        CHECK(entries.back().rtt_ms > 0);
        CHECK(entries.back().input_delay == st.input_delay);
        if (slow && c == &a) CHECK(stalls > 0);
        // The server's word on this player's replaced inputs, frame by frame.
        const int slot = s.slot();
        const auto server_side =
            read_all<server_client_telemetry>(4096, [&](auto out) { return m.server->client_telemetry(slot, out); });
        std::map<frame_t, bool> replaced_by_server;
        for (const auto &e : server_side) replaced_by_server[e.frame] = e.input_replaced;
        std::size_t compared = 0, replaced = 0;
        for (const auto &e : entries) {
            if (!e.confirmed) continue;
            const auto it = replaced_by_server.find(e.frame);
            if (it == replaced_by_server.end()) continue;
            ++compared;
            replaced += e.input_replaced ? 1u : 0u;
            CHECK(e.input_replaced == it->second);
        }
        CHECK(compared > 300);
        if (slow && c == &a) CHECK(replaced > 0); // its inputs arrive after the server's deadline
    }
}

TEST_CASE("a server's telemetry keeps each tick's cost and each slot's client", "[net][telemetry]") {
    fake_clock clock;
    const telemetry_options telemetry{.frames = 256, .clock = clock.hook()};
    sim_match m{32, 3};
    m.use_server_options({.telemetry = telemetry});
    m.add_client(lossy_link, lossy_link);
    m.add_client(slow_link, slow_link);
    run(m, clock, 6000);
    const server_session &s = *m.server;
    REQUIRE(s.telemetry_capacity() == 256);
    const auto ticks = read_all<server_frame_telemetry>(256, [&](auto out) { return s.telemetry(out); });
    REQUIRE(ticks.size() == 256); // 360 frames played: the ring is full
    CHECK(ticks.back().frame + 1u == s.frame());
    std::vector<std::vector<server_client_telemetry>> slots;
    for (int slot = 0; slot < 3; ++slot)
        slots.push_back(
            read_all<server_client_telemetry>(256, [&](auto out) { return s.client_telemetry(slot, out); }));
    for (std::size_t i = 0; i < ticks.size(); ++i) {
        const server_frame_telemetry &t = ticks[i];
        INFO("frame " << t.frame);
        CHECK(t.step_us == fake_clock::step_us);
        CHECK(t.tick_us == fake_clock::step_us); // only the step moved the clock
        CHECK(t.players == 2);
        CHECK(t.bytes_out > 0);
        std::uint32_t replaced = 0;
        for (const auto &slot : slots) {
            REQUIRE(slot.size() == ticks.size());
            CHECK(slot[i].frame == t.frame);
            replaced += slot[i].input_replaced ? 1u : 0u;
        }
        CHECK(t.replaced_inputs == replaced);
        CHECK(slots[0][i].present);
        CHECK(slots[1][i].present);
        CHECK_FALSE(slots[2][i].present); // nobody holds slot 2
        CHECK_FALSE(slots[2][i].input_replaced);
        CHECK(slots[2][i].bytes_in == 0);
    }
    // The slow client's inputs come after their deadlines: the server replaced them, and its
    // margin says they were late; the other's arrive in time.
    std::size_t slow_replaced = 0;
    for (const auto &e : slots[1]) slow_replaced += e.input_replaced ? 1u : 0u;
    CHECK(slow_replaced > 0);
    CHECK(slots[1].back().margin_ms == s.client_stats(1).margin_ms);
    CHECK(slots[0].back().rtt_ms == Approx(s.client_stats(0).rtt_ms).epsilon(1e-3));
    std::uint64_t in = 0;
    for (const auto &e : slots[0]) in += e.bytes_in;
    CHECK(in > 0);
    // Outside the match's slots: nothing.
    std::vector<server_client_telemetry> out(4);
    CHECK(s.client_telemetry(3, out) == 0);
    CHECK(s.client_telemetry(-1, out) == 0);
}

TEST_CASE("telemetry off keeps nothing and never reads the clock", "[net][telemetry]") {
    fake_clock clock;
    const telemetry_options off{.frames = 0, .clock = clock.hook()};
    sim_match m{33, 2};
    m.use_server_options({.telemetry = off});
    auto &a = m.add_client(lossy_link, lossy_link, {.telemetry = off});
    m.add_client(lossy_link, lossy_link, {.telemetry = off});
    run(m, clock, 3000);
    REQUIRE(a.session->stats().rollbacks > 0);
    CHECK(a.session->telemetry_capacity() == 0);
    CHECK(m.server->telemetry_capacity() == 0);
    std::vector<frame_telemetry> out(8);
    CHECK(a.session->telemetry(out) == 0);
    std::vector<server_frame_telemetry> ticks(8);
    CHECK(m.server->telemetry(ticks) == 0);
    std::vector<server_client_telemetry> slot(8);
    CHECK(m.server->client_telemetry(0, slot) == 0);
    CHECK(clock.reads == 0);
}

TEST_CASE("reading telemetry into a short span gives the newest frames", "[net][telemetry]") {
    sim_match m{34, 2};
    auto &a = m.add_client(lossy_link, lossy_link, {.telemetry = {.frames = 64}});
    m.run(3000);
    std::vector<frame_telemetry> all(64), some(5);
    REQUIRE(a.session->telemetry(all) == 64);
    REQUIRE(a.session->telemetry(some) == 5);
    for (std::size_t i = 0; i < 5; ++i) CHECK(some[i].frame == all[59 + i].frame);
    CHECK(a.session->telemetry(std::span<frame_telemetry>{}) == 0);
}

TEST_CASE("each frame of input delay takes a frame off every rollback (docs/net.md, Reading the net graph)",
          "[net][telemetry]") {
    // The most common rollback depth of a player on a steady link (no jitter, no loss) in the
    // second half of a seeded match.
    auto depth = [](int delay, std::uint32_t one_way_ms) {
        fake_clock clock;
        const telemetry_options telemetry{.frames = 4096, .clock = clock.hook()};
        auto cfg = game_config(2);
        cfg.input_delay = static_cast<std::uint8_t>(delay);
        sim_match m{31, 2, cfg};
        m.use_server_options({.telemetry = telemetry});
        const link_conditions link{one_way_ms, 0, 0.0, 0.0, 0.0};
        auto &a = m.add_client(link, link, {.telemetry = telemetry});
        m.add_client(link, link, {.telemetry = telemetry});
        run(m, clock, 12000);
        const auto entries = read_all<frame_telemetry>(4096, [&](auto out) { return a.session->telemetry(out); });
        std::map<std::uint32_t, int> depths;
        for (std::size_t i = entries.size() / 2; i < entries.size(); ++i)
            if (entries[i].rollback_depth > 0) ++depths[entries[i].rollback_depth];
        REQUIRE(!depths.empty());
        auto most = depths.begin();
        for (auto it = depths.begin(); it != depths.end(); ++it)
            if (it->second > most->second) most = it;
        return static_cast<int>(most->first);
    };
    for (const std::uint32_t one_way : {30u, 60u}) {
        INFO("one way " << one_way << " ms");
        const int undelayed = depth(0, one_way);
        // About a round trip plus time sync's margin (1.25 periods), in frames of 16.7 ms.
        const double rtt_frames = 2.0 * one_way / (1000.0 / 60.0);
        CHECK(undelayed >= rtt_frames + 1);
        CHECK(undelayed <= rtt_frames + 3);
        CHECK(depth(2, one_way) == undelayed - 2);
        CHECK(depth(4, one_way) == undelayed - 4);
    }
}
