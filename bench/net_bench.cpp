// Netcode benchmarks. Figures are quoted against baselines measured in the same run
// (docs/benchmarks.md):
//   resim/plain        the movement step run N frames with no rollback: the baseline of a
//                      rollback of N frames (restore from the ring + N frames re-simulated)
//   frame budget       a 60 Hz frame (16.67 ms) for the absolute rollback and tick figures
// Traffic figures come from the simulated network's byte counters (payload only, no ENet / UDP
// / IP headers; the header layers are added by arithmetic from the packet counts, which a
// counting transport records). World: bench/bench_world.hpp; matches: the test game and the
// simulated match of the test support library (tests/support, common/sim_match.hpp). Names read <workload>/<implementation>[/<param>:<value>]/<N>;
// bench/net_report.py prints the tables of docs/benchmarks.md ("Netcode").
#include <retcon/net.hpp>

#include <benchmark/benchmark.h>

#include <common/sim_match.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "bench_world.hpp"

namespace bench {

using clock_type = std::chrono::steady_clock;

double seconds(clock_type::time_point a, clock_type::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// ---------------------------------------------------------------- rollback
// A world of N entities (bench_world.hpp) has run frames 0..15, saving each into a ring of
// 17 slots (prediction window 16 + 1) before simulating it; it stands at the
// start of frame 16. One rollback of F frames = ring.restore(16 - F) + F frames re-simulated,
// which brings the world back to frame 16, so every iteration does the same work.
//   step:move        the movement system (p += v * dt on every entity)
//   step:move_churn  the same plus 0.1% of the entities despawned and respawned per frame
//                    (seeded by the frame number, so re-simulation repeats it)
//   rollback/retcon  restore + F steps (counters: the restore and re-simulation parts)
//   rollback/client  what client_session does: restore, then F steps saving F - 1 of them again
//   resim/plain      F steps, no rollback (the baseline)

constexpr std::uint64_t ring_head = 16;

enum class step_kind { move, move_churn };

template<step_kind Step>
void step(retcon::world &w, std::uint32_t n) {
    sw::move_system(w);
    if constexpr (Step == step_kind::move_churn) {
        sw::rng r{0x5eed0000u + w.resource<sw::Clock>().frame};
        sw::churn(w, r, n / 1000u > 0 ? n / 1000u : 1u);
    }
}

template<step_kind Step>
struct rollback_fixture {
    retcon::world w{sw::world_schema()};
    retcon::snapshot_ring ring{ring_head + 1};
    explicit rollback_fixture(std::uint32_t n) {
        sw::build_world(w, n);
        for (retcon::frame_t f = 0; f < ring_head; ++f) {
            ring.save(w, f);
            step<Step>(w, n);
        }
    }
};

template<step_kind Step, bool Client>
void rollback(benchmark::State &state) {
    const auto n = n_of(state);
    const auto frames = static_cast<retcon::frame_t>(state.range(1));
    rollback_fixture<Step> fx{n};
    const retcon::frame_t from = ring_head - frames;
    double restore_s = 0, resim_s = 0;
    for (auto _ : state) {
        const auto t0 = clock_type::now();
        if (!fx.ring.restore(fx.w, from)) state.SkipWithError("restore failed");
        const auto t1 = clock_type::now();
        for (retcon::frame_t f = from; f < ring_head; ++f) {
            if (Client && f != from) fx.ring.save(fx.w, f);
            step<Step>(fx.w, n);
        }
        benchmark::ClobberMemory();
        const auto t2 = clock_type::now();
        restore_s += seconds(t0, t1);
        resim_s += seconds(t1, t2);
    }
    set_items(state, n);
    const auto iters = static_cast<double>(state.iterations());
    state.counters["restore_us"] = restore_s / iters * 1e6;
    state.counters["resim_us"] = resim_s / iters * 1e6;
    state.counters["image_bytes"] = static_cast<double>(fx.ring.find(from)->size());
}

template<step_kind Step>
void resim_plain(benchmark::State &state) {
    const auto n = n_of(state);
    const auto frames = state.range(1);
    rollback_fixture<Step> fx{n};
    for (auto _ : state) {
        for (std::int64_t f = 0; f < frames; ++f) step<Step>(fx.w, n);
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

// ---------------------------------------------------------------- matches on the simulated network

/// How a bot plays: `test` is the test game's bot (turns now and then, fires 1 frame in 20);
/// `rare` changes its input about once a second and never fires; `every_frame` sends a
/// different input every frame.
enum class bot_kind { test, rare, every_frame };

/// The inputs of a `rare` or `every_frame` bot, seeded per client.
struct scripted_bot {
    bot_kind kind;
    sw::rng r;
    std::uint64_t ticks = 0;
    retcon::test::game_input input{};

    retcon::test::game_input operator()() {
        ++ticks;
        if (kind == bot_kind::rare) {
            if (ticks % 60 == 0) {
                input.dx = static_cast<std::int8_t>(static_cast<int>(r.below(3)) - 1);
                input.dy = static_cast<std::int8_t>(static_cast<int>(r.below(3)) - 1);
            }
        } else {
            input.dx = static_cast<std::int8_t>(static_cast<int>(r.below(256)) - 128);
            input.dy = static_cast<std::int8_t>(static_cast<int>(r.below(256)) - 128);
            input.fire = static_cast<std::uint8_t>(ticks & 1u); // differs from the last one every frame
        }
        return input;
    }
};

struct tick_timer {
    double seconds = 0;
    std::uint64_t ticks = 0;
};

/// A server and @p players clients of the test game on a seeded simulated network, driven by a
/// virtual clock in 1 ms steps: the tests' sim_match (common/sim_match.hpp), counting packets
/// and bytes, without the hash log (whose callbacks would run inside the timed ticks).
class match {
public:
    match(std::uint64_t seed, std::uint8_t players, const retcon::link_conditions &link, bot_kind kind)
        : m_{seed, players, retcon::test::game_config(players), {.keep_hashes = false, .count_traffic = true}} {
        for (std::uint8_t i = 0; i < players; ++i) {
            auto &c = m_.add_client(link, link);
            if (kind != bot_kind::test) c.script = scripted_bot{kind, sw::rng{seed * 131u + i}};
        }
    }

    /// @brief One millisecond of virtual time. Ticks of the server and of client 0 are timed
    /// into the given timers (if any); client 0 ticks at most once per step when timed.
    void step_ms(tick_timer *server_timer = nullptr, tick_timer *client0_timer = nullptr) {
        m_.step(
            [&](retcon::server_session &s) {
                if (!server_timer) {
                    s.tick();
                    return;
                }
                const auto t0 = clock_type::now();
                s.tick();
                server_timer->seconds += seconds(t0, clock_type::now());
                ++server_timer->ticks;
            },
            [&](std::size_t i, retcon::client_session &s, const retcon::test::game_input &in) {
                if (i != 0 || !client0_timer) {
                    s.tick(in);
                    return true;
                }
                const auto t0 = clock_type::now();
                s.tick(in);
                client0_timer->seconds += seconds(t0, clock_type::now());
                ++client0_timer->ticks;
                return false;
            });
    }
    void run(std::uint64_t ms) { m_.run(ms); }

    struct traffic {
        std::uint64_t bytes_up = 0, bytes_down = 0;             // sim_network counters (all channels)
        std::uint64_t input_packets_up = 0, input_bytes_up = 0; // channel::inputs, client -> server
        std::uint64_t input_packets_down = 0, input_bytes_down = 0;
        std::uint64_t other_packets_up = 0, other_packets_down = 0; // reliable channels
    };
    /// @brief Totals over all clients.
    [[nodiscard]] traffic totals() const {
        traffic t;
        for (std::size_t i = 0; i < m_.clients.size(); ++i) {
            t.bytes_up += m_.net.bytes_up(i);
            t.bytes_down += m_.net.bytes_down(i);
            const auto peer = static_cast<retcon::peer_id>(i);
            for (std::uint8_t ch = 0; ch < retcon::wire::channel_count; ++ch) {
                const auto channel = static_cast<retcon::wire::channel>(ch);
                const auto up = m_.clients[i]->counted->sent(0, channel);
                const auto down = m_.server_counted->sent(peer, channel);
                if (channel == retcon::wire::channel::inputs) {
                    t.input_packets_up += up.packets;
                    t.input_bytes_up += up.bytes;
                    t.input_packets_down += down.packets;
                    t.input_bytes_down += down.bytes;
                } else {
                    t.other_packets_up += up.packets;
                    t.other_packets_down += down.packets;
                }
            }
        }
        return t;
    }

    [[nodiscard]] bool all_running() const {
        for (const auto &c : m_.clients)
            if (c->session->state() != retcon::client_state::running) return false;
        return true;
    }
    [[nodiscard]] const retcon::client_session &client(std::size_t i) const { return *m_.clients[i]->session; }
    [[nodiscard]] const retcon::server_session &server() const { return *m_.server; }
    [[nodiscard]] std::size_t clients() const { return m_.clients.size(); }

private:
    retcon::test::sim_match m_;
};

/// 100 ms round trip (50 ms each way), 5% loss of unreliable packets each way.
const retcon::link_conditions wan{50, 0, 0.05};

// ---------------------------------------------------------------- traffic per client
// 5 s to join and settle, then 60 s of virtual time measured. Per client and second, averaged
// over the clients: payload bytes up and down (sim_network counters), and packets (the counting
// transport), from which the report adds ENet + UDP + IPv4 headers.

constexpr std::uint64_t warmup_ms = 5'000, measured_ms = 60'000;

template<bot_kind Kind>
void traffic(benchmark::State &state) {
    const auto players = static_cast<std::uint8_t>(state.range(0));
    match::traffic a, b;
    double replaced = 0, rollbacks = 0, resimulated = 0;
    bool running = false;
    for (auto _ : state) {
        match m{42, players, wan, Kind};
        m.run(warmup_ms);
        a = m.totals();
        const auto replaced0 = m.server().totals().replaced_inputs;
        rollbacks = resimulated = 0;
        for (std::size_t i = 0; i < m.clients(); ++i) {
            rollbacks -= static_cast<double>(m.client(i).stats().rollbacks);
            resimulated -= static_cast<double>(m.client(i).stats().resimulated);
        }
        m.run(measured_ms);
        b = m.totals();
        running = m.all_running();
        replaced = static_cast<double>(m.server().totals().replaced_inputs - replaced0);
        for (std::size_t i = 0; i < m.clients(); ++i) {
            rollbacks += static_cast<double>(m.client(i).stats().rollbacks);
            resimulated += static_cast<double>(m.client(i).stats().resimulated);
        }
    }
    if (!running) state.SkipWithError("a client is not running at the end");
    const double per = static_cast<double>(players) * (static_cast<double>(measured_ms) / 1000.0);
    auto rate = [&](std::uint64_t before, std::uint64_t after) { return static_cast<double>(after - before) / per; };
    state.counters["up_Bps"] = rate(a.bytes_up, b.bytes_up);
    state.counters["down_Bps"] = rate(a.bytes_down, b.bytes_down);
    state.counters["input_up_Bps"] = rate(a.input_bytes_up, b.input_bytes_up);
    state.counters["input_down_Bps"] = rate(a.input_bytes_down, b.input_bytes_down);
    state.counters["input_up_pps"] = rate(a.input_packets_up, b.input_packets_up);
    state.counters["input_down_pps"] = rate(a.input_packets_down, b.input_packets_down);
    state.counters["other_up_pps"] = rate(a.other_packets_up, b.other_packets_up);
    state.counters["other_down_pps"] = rate(a.other_packets_down, b.other_packets_down);
    state.counters["replaced_pct"] = replaced / (per * 60.0) * 100.0;
    state.counters["rollbacks_per_s"] = rollbacks / per;
    state.counters["resimulated_per_s"] = resimulated / per;
}

// ---------------------------------------------------------------- tick cost
// A 4-player match with the test bots on the WAN link above, settled for 5 s; each iteration
// advances virtual time until the measured side has ticked, and only that tick is timed.

template<bool Server>
void tick_cost(benchmark::State &state) {
    const auto players = static_cast<std::uint8_t>(state.range(0));
    match m{7, players, wan, bot_kind::test};
    m.run(warmup_ms);
    tick_timer total;
    const auto stats0 = m.client(0).stats();
    for (auto _ : state) {
        tick_timer t;
        while (t.ticks == 0) m.step_ms(Server ? &t : nullptr, Server ? nullptr : &t);
        state.SetIterationTime(t.seconds);
        total.seconds += t.seconds;
        total.ticks += t.ticks;
    }
    if (!m.all_running()) state.SkipWithError("a client is not running");
    const auto stats1 = m.client(0).stats();
    state.counters["ns_per_tick"] = total.seconds / static_cast<double>(total.ticks) * 1e9;
    state.counters["ticks_per_iteration"] = static_cast<double>(total.ticks) / static_cast<double>(state.iterations());
    const double frames = static_cast<double>(stats1.current_frame - stats0.current_frame);
    if (frames > 0) {
        state.counters["rollbacks_per_frame"] = static_cast<double>(stats1.rollbacks - stats0.rollbacks) / frames;
        state.counters["resim_per_frame"] = static_cast<double>(stats1.resimulated - stats0.resimulated) / frames;
    }
}

// ---------------------------------------------------------------- registration

void register_all() {
    constexpr std::int64_t sizes[] = {1'000, 10'000, 100'000};
    constexpr std::int64_t frame_counts[] = {1, 4, 8};
    using fn_t = void (*)(benchmark::State &);
    const std::pair<std::string, fn_t> rollbacks[] = {
        {"rollback/retcon/step:move", rollback<step_kind::move, false>},
        {"rollback/client/step:move", rollback<step_kind::move, true>},
        {"resim/plain/step:move", resim_plain<step_kind::move>},
        {"rollback/retcon/step:move_churn", rollback<step_kind::move_churn, false>},
        {"rollback/client/step:move_churn", rollback<step_kind::move_churn, true>},
        {"resim/plain/step:move_churn", resim_plain<step_kind::move_churn>},
    };
    for (const auto &[name, fn] : rollbacks)
        for (const auto frames : frame_counts)
            for (const auto n : sizes)
                with_spread(benchmark::RegisterBenchmark(name.c_str(), fn)
                                ->Args({n, frames})
                                ->ArgNames({"", "frames"})
                                ->Unit(benchmark::kMicrosecond),
                            5);

    const std::pair<std::string, fn_t> traffics[] = {
        {"traffic/rare", traffic<bot_kind::rare>},
        {"traffic/every_frame", traffic<bot_kind::every_frame>},
        {"traffic/test_bot", traffic<bot_kind::test>},
    };
    for (const auto &[name, fn] : traffics)
        for (const std::int64_t players : {2, 8})
            benchmark::RegisterBenchmark(name.c_str(), fn)
                ->Arg(players)
                ->Iterations(1)
                ->Repetitions(1)
                ->Unit(benchmark::kMillisecond);

    with_spread(benchmark::RegisterBenchmark("tick/client", tick_cost<false>)
                    ->Arg(4)
                    ->Iterations(1800)
                    ->UseManualTime()
                    ->Unit(benchmark::kMicrosecond),
                5);
    with_spread(benchmark::RegisterBenchmark("tick/server", tick_cost<true>)
                    ->Arg(4)
                    ->Iterations(1800)
                    ->UseManualTime()
                    ->Unit(benchmark::kMicrosecond),
                5);
}

} // namespace bench

int main(int argc, char **argv) {
    bench::keep_freed_memory();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    bench::register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
