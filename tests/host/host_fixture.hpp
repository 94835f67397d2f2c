#ifndef RETCON_TESTS_HOST_FIXTURE_HPP
#define RETCON_TESTS_HOST_FIXTURE_HPP

// What the match host tests share (docs/hosting.md): a tiny counting game, the host on a
// thread, client_sessions over real ENet on loopback polled from the test thread, join tokens,
// and a replay check. Iteration counts bound every wait (give-up bounds, never timing
// assertions).
#include <catch2/catch.hpp>

#include <retcon/host.hpp>
#include <retcon/net.hpp>
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/replay.hpp>

#include <common/counting_allocator.hpp>
#include <common/temp_dir.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace retcon::test {

// ---------------------------------------------------------------------- a tiny counting game

struct counter_input {
    std::int32_t add;
};
RETCON_COMPONENT(counter_input, add);

struct probe {
    std::int32_t v;
};
RETCON_COMPONENT(probe, v);

/// The whole game state: the match's seed (so a client can tell which match it is in), the
/// frames simulated, and the sum of every present player's inputs.
struct tally {
    std::uint64_t seed;
    std::uint32_t frames;
    std::uint32_t pad;
    std::int64_t total;
    std::int64_t per_slot[8];
};
RETCON_RESOURCE(tally, seed, frames, pad, total, per_slot);

inline schema counter_schema() {
    schema s;
    s.component<probe>().resource<tally>();
    return s;
}

inline void step_counter(world &w, const frame_inputs &in) {
    auto &t = w.resource<tally>();
    ++t.frames;
    for (std::size_t p = 0; p < in.players() && p < 8; ++p) {
        if (!in.present(p)) continue;
        const auto add = in.get<counter_input>(p).add;
        t.total += add;
        t.per_slot[p] += add;
    }
}

inline session_config counter_config(std::uint8_t players, std::uint16_t tick_hz = 60) {
    return make_session_config<counter_input>(players, tick_hz);
}

/// What the test tells the games on the ticking thread, and what they tell the test back.
struct game_control {
    /// Isolation: once armed, the step of seed 666 throws and the step of seed 667 makes a
    /// misuse report (world::get of a component on the null entity).
    std::atomic<bool> fail_armed{false};
    std::atomic<frame_t> failed_at{no_frame};
    /// Allocations: once requested, the step of `measure_seed` counts the ticking thread's
    /// allocations from the frame it sees the request (A) to frame A + measure_frames (B).
    std::uint64_t measure_seed = 0;
    frame_t measure_frames = 600;
    std::atomic<bool> measure_requested{false};
    std::atomic<long long> measured_allocations{-1};
    std::atomic<frame_t> measured_from{0};
    // Touched only on the ticking thread.
    std::optional<allocation_counter> counter;
    frame_t counting_since = 0;
};

inline result<hosted_game> make_counter_game(const match_params &p, game_control *ctl) {
    if (p.settings == "refuse") return result<hosted_game>{errc::invalid_argument, "the counter game has no such map"};
    hosted_game g;
    g.state = std::make_unique<world>(counter_schema());
    tally t{};
    t.seed = p.seed;
    g.state->set_resource<tally>(t);
    const std::uint64_t seed = p.seed;
    g.step = [ctl, seed](world &w, const frame_inputs &in) {
        if (ctl && ctl->fail_armed.load()) {
            if (seed == 666) {
                ctl->failed_at.store(in.frame());
                throw std::runtime_error("the game broke at frame " + std::to_string(in.frame()));
            }
            if (seed == 667) (void)w.get<probe>(null_entity); // misuse: reported before any change
        }
        if (ctl && seed == ctl->measure_seed) {
            if (!ctl->counter && ctl->measure_requested.load() && ctl->measured_allocations.load() < 0) {
                ctl->counter.emplace();
                ctl->counting_since = in.frame();
                ctl->measured_from.store(in.frame());
            } else if (ctl->counter && in.frame() >= ctl->counting_since + ctl->measure_frames) {
                const auto n = static_cast<long long>(ctl->counter->count());
                ctl->counter.reset();
                ctl->measured_allocations.store(n);
            }
        }
        step_counter(w, in);
    };
    g.config = counter_config(p.players, p.tick_hz);
    g.report = [](const world &w, std::span<slot_result> slots) {
        const auto &counted = w.resource<tally>();
        for (auto &s : slots) {
            s.score = counted.per_slot[s.slot % 8];
            s.outcome = "counted";
        }
    };
    g.metadata = {{"game", "counter"}};
    return g;
}

/// The counting game with no controls: a game_factory as it is.
inline result<hosted_game> counter_game(const match_params &p) { return make_counter_game(p, nullptr); }

inline std::uint64_t wall_ms() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count());
}

inline std::uint64_t unix_now() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<seconds>(system_clock::now().time_since_epoch()).count());
}

// ---------------------------------------------------------------------- the host on a thread

/// A match host running on its own thread. The destructor forces a drain and joins, so a
/// failed REQUIRE never leaves the thread running.
struct host_thread {
    std::unique_ptr<match_host> host;
    std::thread thread;
    std::atomic<int> exit_code{-1};
    std::atomic<bool> done{false};
    mutable std::mutex mutex;
    std::vector<match_result> results;
    std::vector<std::string> log;

    /// @p runner runs the host on the thread (default: match_host::run; an orchestrator's test
    /// passes one that calls serve).
    host_thread(host_options o, game_factory f, std::function<int(match_host &)> runner = {}) {
        auto made = match_host::create(std::move(o), std::move(f));
        INFO(made.message());
        REQUIRE(made.ok());
        host = std::move(*made);
        host->on_result([this](const match_result &r) {
            std::lock_guard lock{mutex};
            results.push_back(r);
        });
        host->on_log([this](std::string_view line) {
            std::lock_guard lock{mutex};
            log.emplace_back(line);
        });
        thread = std::thread{[this, runner = std::move(runner)] {
            exit_code.store(runner ? runner(*host) : host->run());
            done.store(true);
        }};
    }
    host_thread(const host_thread &) = delete;
    host_thread &operator=(const host_thread &) = delete;
    ~host_thread() {
        if (thread.joinable()) {
            host->request_drain();
            host->request_drain();
            thread.join();
        }
    }
    int join() {
        thread.join();
        return exit_code.load();
    }
    std::vector<match_result> results_copy() const {
        std::lock_guard lock{mutex};
        return results;
    }
    std::size_t result_count() const {
        std::lock_guard lock{mutex};
        return results.size();
    }
    std::optional<match_result> result_of(const std::string &id) const {
        std::lock_guard lock{mutex};
        for (const auto &r : results)
            if (r.match_id == id) return r;
        return std::nullopt;
    }
    bool logged(const std::string &text) const {
        std::lock_guard lock{mutex};
        return std::any_of(log.begin(), log.end(),
                           [&](const std::string &l) { return l.find(text) != std::string::npos; });
    }
    /// Refusals the log accounts for: one per "refused: ..." line plus the counts of those held
    /// back ("(and N more refused since)", "refused: N more connections since ...").
    std::uint64_t logged_refusals() const {
        std::lock_guard lock{mutex};
        std::uint64_t n = 0;
        for (const auto &l : log) {
            if (l.rfind("refused: ", 0) != 0) continue;
            if (l.find(" more connections refused since the last report") != std::string::npos) {
                n += std::stoull(l.substr(9));
                continue;
            }
            ++n;
            if (const auto at = l.find("(and "); at != std::string::npos) n += std::stoull(l.substr(at + 5));
        }
        return n;
    }
    std::string log_text() const {
        std::lock_guard lock{mutex};
        std::string s;
        for (const auto &l : log) s += l + "\n";
        return s;
    }
};

/// A pointer into @p m: keep the host_metrics copy alive while using it.
inline const match_metrics *find_match(const host_metrics &m, const std::string &id) {
    for (const auto &x : m.per_match)
        if (x.match_id == id) return &x;
    return nullptr;
}

// ---------------------------------------------------------------------- clients

/// A client_session over real ENet to the host, with everything it reported.
struct test_client {
    world w{counter_schema()};
    std::unique_ptr<transport> t;
    std::unique_ptr<client_session> s;
    std::vector<session_event> events;
    std::map<frame_t, std::uint64_t> confirmed_hashes;
    std::int32_t add;
    bool active = true; ///< false: no longer polled

    test_client(std::uint16_t port, client_options opt, std::int32_t add_each_frame) : add{add_each_frame} {
        auto made = make_enet_client("127.0.0.1", port);
        REQUIRE(made.ok());
        t = std::move(*made);
        opt.connect_timeout_ms = 20000;
        s = std::make_unique<client_session>(counter_config(1), w, step_counter, *t, std::move(opt));
        s->on_confirmed_hash([this](frame_t f, std::uint64_t h) { confirmed_hashes[f] = h; });
    }
    void step(std::uint64_t now) {
        if (!active) return;
        s->poll(now);
        while (s->should_tick(now)) s->tick(counter_input{add});
        for (session_event e; s->next_event(e);) events.push_back(e);
    }
    [[nodiscard]] bool running() const { return s->state() == client_state::running; }
    [[nodiscard]] bool rejected() const { return s->state() == client_state::rejected; }
    [[nodiscard]] bool saw(session_event_kind kind) const {
        return std::any_of(events.begin(), events.end(), [&](const session_event &e) { return e.kind == kind; });
    }
    /// @brief Refused for @p reason (the event's typed field; its text is for logs).
    [[nodiscard]] bool rejected_for(wire::reject_reason reason) const {
        return std::any_of(events.begin(), events.end(), [&](const session_event &e) {
            return e.kind == session_event_kind::rejected && e.reject == reason;
        });
    }
    [[nodiscard]] std::string all_events() const {
        std::string out;
        for (const auto &e : events) out += std::string{to_string(e.kind)} + ": " + e.text + "\n";
        return out;
    }
    [[nodiscard]] std::uint64_t match_seed() const { return w.resource<tally>().seed; }
};

using client_list = std::vector<std::unique_ptr<test_client>>;

/// Polls every client (1 ms apart) until @p done or @p max_iterations; returns done().
template<class Done>
inline bool pump(client_list &clients, Done done, int max_iterations = 20000) {
    for (int i = 0; i < max_iterations; ++i) {
        const auto now = wall_ms();
        for (auto &c : clients) c->step(now);
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return done();
}

inline test_client &connect(client_list &clients, std::uint16_t port, client_options opt = {}, std::int32_t add = 1) {
    return *clients.emplace_back(std::make_unique<test_client>(port, std::move(opt), add));
}

// ---------------------------------------------------------------------- join tokens

struct token_issuer {
    signing_key key = generate_signing_key(3);
    std::string fleet = "test-fleet";

    join_token token(const std::string &match, std::uint8_t slot, std::uint64_t player_id, match_params params) const {
        join_token t;
        t.role = token_role::player;
        t.issued_at = unix_now();
        t.expires_at = t.issued_at + 600;
        t.fleet = fleet;
        t.match_id = match;
        t.slot = slot;
        t.player_id = player_id;
        t.player_name = "p" + std::to_string(player_id);
        t.params = std::move(params);
        return t;
    }
    std::vector<std::byte> sign(const join_token &t) const {
        auto bytes = sign_token(t, key);
        INFO(bytes.message());
        REQUIRE(bytes.ok());
        return *bytes;
    }
};

inline match_params params_of(std::uint8_t players, std::uint64_t seed, std::string settings = {}) {
    match_params p;
    p.players = players;
    p.tick_hz = 60;
    p.seed = seed;
    p.settings = std::move(settings);
    return p;
}

inline host_options local_options() {
    host_options o;
    o.port = 0;
    o.bind_host = "127.0.0.1";
    o.session.end_timeout_ms = 2000;
    return o;
}

/// Checks a finished match's replay: it opens, every checksum holds, it is complete, and
/// re-simulating it with the game's step reaches every recorded hash, the last one the result's.
inline void check_replay(const match_result &r) {
    INFO("match " << r.match_id << " replay '" << r.replay_path << "'");
    REQUIRE_FALSE(r.replay_path.empty());
    REQUIRE(std::filesystem::exists(r.replay_path));
    const auto bytes = read_bytes(r.replay_path);
    CHECK(r.replay_bytes == bytes.size());
    CHECK(r.replay_hash == xxh3(bytes));
    auto reader = replay_reader::open(r.replay_path);
    INFO(reader.message());
    REQUIRE(reader.ok());
    CHECK(reader->complete());
    auto checked = reader->check();
    INFO(checked.message());
    CHECK(checked.ok());
    world w{counter_schema()};
    auto v = verify(*reader, w, step_counter);
    INFO(v.message());
    REQUIRE(v.ok());
    CHECK(v->ok());
    CHECK(v->frames_checked == reader->frame_count());
    CHECK(reader->end_frame() == r.final_frame);
    if (reader->frame_count() > 0) CHECK(reader->hash(reader->end_frame() - 1) == r.final_hash);
}

} // namespace retcon::test

#endif
