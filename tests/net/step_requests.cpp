// Poll mode (net/include/retcon/net/step_requests.hpp; docs/net.md, "Poll mode"): the sessions'
// tick_requests hand each frame to the caller instead of running the game's step, and a match
// driven that way is the match tick() plays.
#include <catch2/catch.hpp>

#include <common/counting_allocator.hpp>
#include <common/misuse.hpp>
#include <common/sim_match.hpp>
#include <common/sim_match_allocations.hpp>

#include <retcon/net/step_requests.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {

std::span<const std::byte> bytes_of(const game_input &in) { return std::as_bytes(std::span{&in, 1}); }

/// What a poll-mode driver saw, and every way the requests broke the contract of
/// docs/net.md, "Poll mode" (the first one described).
struct poll_log {
    std::size_t requests = 0;       ///< client requests stepped
    std::size_t resimulated = 0;    ///< of them, flagged `resimulating`
    std::size_t rollback_ticks = 0; ///< client ticks that re-simulated
    std::size_t server_requests = 0;
    std::size_t violations = 0;
    std::string first;

    void violation(const std::string &what) {
        if (violations++ == 0) first = what;
    }
};

/// One client tick in poll mode, stepping each request with the test game and checking it:
/// consecutive frames, the re-simulated ones first and up to the present, then at most one new
/// frame (the present), `is_resimulating()` agreeing with each request, result() saying whether
/// the tick advanced.
bool poll_client_tick(client_session &s, const world &w, const game_input &in, poll_log &log) {
    const frame_t before = s.current_frame();
    step_requests requests = s.tick_requests(bytes_of(in));
    std::ostringstream why;
    frame_t expected = no_frame;
    std::size_t resim = 0;
    bool advanced = false;
    while (const step_request *r = requests.next()) {
        const frame_t f = r->inputs.frame();
        why.str({});
        why << "tick at frame " << before << ": request for frame " << f << (r->resimulating ? " (resim)" : "");
        ++log.requests;
        if (r->target != &w) log.violation(why.str() + " targets another world");
        if (expected != no_frame && f != expected) log.violation(why.str() + " is out of order");
        if (advanced) log.violation(why.str() + " comes after the new frame");
        if (s.is_resimulating() != r->resimulating) log.violation(why.str() + ": is_resimulating() disagrees");
        if (r->resimulating) {
            ++resim;
            if (f >= before) log.violation(why.str() + " re-simulates a frame never simulated");
        } else {
            advanced = true;
            if (f != before) log.violation(why.str() + " is not the present frame");
        }
        expected = f + 1;
        step_game(*r->target, r->inputs);
    }
    why.str({});
    why << "tick at frame " << before;
    if (resim > 0) {
        ++log.rollback_ticks;
        log.resimulated += resim;
        if (expected != before + (advanced ? 1u : 0u)) log.violation(why.str() + ": the rollback stopped short");
    }
    if (s.is_resimulating()) log.violation(why.str() + ": still re-simulating after the last request");
    if (requests.result() != advanced) log.violation(why.str() + ": result() disagrees with the requests");
    if (s.current_frame() != before + (advanced ? 1u : 0u)) log.violation(why.str() + ": current_frame() is off");
    return true;
}

/// One server tick in poll mode: exactly one request, the next frame, never re-simulated.
void poll_server_tick(server_session &s, const world &w, poll_log &log) {
    const frame_t before = s.frame();
    step_requests requests = s.tick_requests();
    std::size_t n = 0;
    while (const step_request *r = requests.next()) {
        ++n;
        ++log.server_requests;
        if (r->target != &w || r->resimulating || r->inputs.frame() != before)
            log.violation("server request for frame " + std::to_string(r->inputs.frame()) + " at frame " +
                          std::to_string(before));
        step_game(*r->target, r->inputs);
    }
    if (n != 1 || !requests.result() || s.frame() != before + 1)
        log.violation("server tick at frame " + std::to_string(before) + " made " + std::to_string(n) + " requests");
}

/// Advances @p m by @p ms milliseconds in poll mode.
void run_polled(sim_match &m, std::uint64_t ms, poll_log &log) {
    for (std::uint64_t i = 0; i < ms; ++i)
        m.step([&](server_session &s) { poll_server_tick(s, m.server_world, log); },
               [&](std::size_t c, client_session &s, const game_input &in) {
                   return poll_client_tick(s, m.clients[c]->w, in, log);
               });
}

/// 80 ms RTT with 10 ms jitter each way, some loss and reordering: clients roll back.
const link_conditions lossy_link{40, 10, 0.05, 0.0, 0.02};

std::size_t count_with(const std::vector<session_event> &evs, session_event_kind kind, int slot) {
    std::size_t n = 0;
    for (const auto &e : evs) n += e.kind == kind && e.slot == slot ? 1u : 0u;
    return n;
}

/// A game error thrown from a session callback.
struct game_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A coroutine_memory with a step program of its own: `frames` yields @p count requests from
/// @p first on, in the owner's reused block when it is free.
struct program_owner : internal::coroutine_memory {
    world w{game_schema()};
    std::array<std::byte, frame_inputs::record_size(1, 1)> record{};

    step_requests frames(frame_t first, frame_t count) {
        for (frame_t f = first; f < first + count; ++f)
            co_yield step_request{&w, frame_inputs{f, 1, 1, record.data()}, false};
        co_return true;
    }
    /// How many of the two reused blocks are free (takes them and gives them back).
    int blocks_free() {
        void *a = allocate(1);
        void *b = a != nullptr ? allocate(1) : nullptr;
        if (b != nullptr) release(b);
        if (a != nullptr) release(a);
        return (a != nullptr ? 1 : 0) + (b != nullptr ? 1 : 0);
    }
};

/// The frames @p requests hands out, each counted as stepped.
std::vector<frame_t> drain(step_requests &requests) {
    std::vector<frame_t> frames;
    while (const step_request *r = requests.next()) frames.push_back(r->inputs.frame());
    return frames;
}

} // namespace

TEST_CASE("a match driven with tick_requests confirms the same world hashes as the same match driven with tick",
          "[net][poll]") {
    sim_match ticked{21, 2}, polled{21, 2};
    for (auto *m : {&ticked, &polled}) {
        m->add_client(lossy_link, lossy_link);
        m->add_client(lossy_link, lossy_link);
    }
    ticked.run(6000);
    poll_log log;
    run_polled(polled, 6000, log);
    INFO(log.first);
    CHECK(log.violations == 0);
    REQUIRE(polled.server_hashes.size() > 300);
    CHECK(polled.server_hashes == ticked.server_hashes);
    CHECK(log.server_requests == polled.server->frame());
    std::uint64_t rollbacks = 0;
    for (std::size_t i = 0; i < 2; ++i) {
        INFO("client " << i);
        const sim_client &p = *polled.clients[i], &t = *ticked.clients[i];
        REQUIRE(p.session->state() == client_state::running);
        CHECK(p.hashes.size() > 300);
        CHECK(p.hashes == t.hashes);
        CHECK(polled.compare(p).mismatched == 0);
        CHECK(sim_match::count(p.events, session_event_kind::desync_detected) == 0);
        CHECK(p.session->stats().rollbacks == t.session->stats().rollbacks);
        CHECK(p.session->stats().resimulated == t.session->stats().resimulated);
        rollbacks += p.session->stats().rollbacks;
    }
    CHECK(rollbacks > 0);
    CHECK(sim_match::count(polled.server_events, session_event_kind::desync_detected) == 0);
    CHECK(sim_match::count(polled.server_events, session_event_kind::session_failed) == 0);
}

TEST_CASE("step requests flag exactly the re-simulated frames, in frame order, as is_resimulating() does",
          "[net][poll]") {
    sim_match m{22, 2};
    m.add_client(lossy_link, lossy_link);
    m.add_client(lossy_link, lossy_link);
    poll_log log;
    run_polled(m, 5000, log);
    INFO(log.first);
    CHECK(log.violations == 0);
    std::uint64_t rollbacks = 0, resimulated = 0;
    for (const auto &c : m.clients) {
        rollbacks += c->session->stats().rollbacks;
        resimulated += c->session->stats().resimulated;
    }
    CHECK(rollbacks > 0);
    // Every re-simulated frame was one flagged request, every rollback one tick with them.
    CHECK(log.rollback_ticks == rollbacks);
    CHECK(log.resimulated == resimulated);
    CHECK(log.requests > log.resimulated);
}

TEST_CASE("dropping a client's step requests with one outstanding ends the session with session_failed",
          "[net][poll]") {
    const bool during_rollback = GENERATE(false, true);
    const bool abandon = GENERATE(false, true);
    INFO((during_rollback ? "re-simulated" : "new") << " frame, " << (abandon ? "abandon(why)" : "dropped"));
    sim_match m{23, 2};
    auto &quitter = m.add_client(lossy_link, lossy_link);
    auto &other = m.add_client(lossy_link, lossy_link);
    m.run(2000);
    REQUIRE(quitter.session->state() == client_state::running);
    const int slot = quitter.session->slot();
    frame_t dropped = no_frame;
    bool resimulating_after = true;
    client_state state_after = client_state::running;
    for (int ms = 0; ms < 5000 && dropped == no_frame; ++ms)
        m.step([](server_session &s) { s.tick(); },
               [&](std::size_t c, client_session &s, const game_input &in) {
                   if (c != 0 || dropped != no_frame) {
                       s.tick(in);
                       return true;
                   }
                   step_requests requests = s.tick_requests(bytes_of(in));
                   while (const step_request *r = requests.next()) {
                       if (r->resimulating == during_rollback) {
                           dropped = r->inputs.frame();
                           if (abandon) requests.abandon("the engine lost the frame");
                           else
                               requests = step_requests{};
                           resimulating_after = s.is_resimulating();
                           state_after = s.state();
                           return false;
                       }
                       step_game(*r->target, r->inputs);
                   }
                   return true;
               });
    REQUIRE(dropped != no_frame);
    CHECK(state_after == client_state::disconnected); // at once, not at the next poll
    CHECK_FALSE(resimulating_after);
    m.run(1000);
    CHECK(quitter.session->state() == client_state::disconnected);
    REQUIRE(sim_match::count(quitter.events, session_event_kind::session_failed) == 1);
    for (const auto &e : quitter.events)
        if (e.kind == session_event_kind::session_failed) {
            CHECK(e.frame == dropped);
            CHECK(e.slot == slot);
            CHECK(e.text == (abandon ? std::string{"the engine lost the frame"}
                                     : "frame " + std::to_string(dropped) + " was not stepped"));
        }
    // It said goodbye: the server sees the player leave, the match goes on for the other.
    CHECK(count_with(m.server_events, session_event_kind::player_left, slot) == 1);
    CHECK(m.server->players() == 1);
    CHECK(other.session->state() == client_state::running);
    CHECK(m.compare(other).mismatched == 0);
    // A failed session asks for no more steps.
    step_requests after = quitter.session->tick_requests(bytes_of(game_input{}));
    CHECK(after.done());
    CHECK_FALSE(after.result());
}

TEST_CASE("dropping a server's step request ends the match with session_failed", "[net][poll]") {
    const bool abandon = GENERATE(false, true);
    INFO((abandon ? "abandon(why)" : "dropped"));
    sim_match m{24, 2};
    m.add_client(lossy_link, lossy_link);
    m.add_client(lossy_link, lossy_link);
    m.run(2000);
    for (auto &c : m.clients) REQUIRE(c->session->state() == client_state::running);
    frame_t dropped = no_frame;
    while (dropped == no_frame && m.now < 5000)
        m.step(
            [&](server_session &s) {
                if (dropped != no_frame) return;
                step_requests requests = s.tick_requests();
                const step_request *r = requests.next();
                REQUIRE(r != nullptr);
                dropped = r->inputs.frame();
                if (abandon) requests.abandon("the engine lost the frame");
            },
            [](std::size_t, client_session &s, const game_input &in) {
                s.tick(in);
                return true;
            });
    REQUIRE(dropped != no_frame);
    CHECK(m.server->frame() == dropped); // the frame never counted
    CHECK_FALSE(m.server->should_tick(m.now + 1000));
    REQUIRE(sim_match::count(m.server_events, session_event_kind::session_failed) == 1);
    for (const auto &e : m.server_events)
        if (e.kind == session_event_kind::session_failed) {
            CHECK(e.frame == dropped);
            CHECK(e.text == (abandon ? std::string{"the engine lost the frame"}
                                     : "frame " + std::to_string(dropped) + " was not stepped"));
        }
    // The match ends as end_match ends it: every client hears match_ended.
    const std::uint64_t failed_at = m.now;
    while (!m.server->finished() && m.now - failed_at < 3000) m.run(1);
    CHECK(m.server->finished());
    m.run(500);
    for (auto &c : m.clients) {
        CHECK(sim_match::count(c->events, session_event_kind::match_ended) == 1);
        CHECK(c->session->state() == client_state::disconnected);
    }
    step_requests after = m.server->tick_requests();
    CHECK(after.done());
    CHECK_FALSE(after.result());
}

TEST_CASE("a tick that needs no step gives requests that are done at once with result() false", "[net][poll]") {
    SECTION("a client that is not running") {
        sim_network net{25};
        world w{game_schema()};
        init_game(w);
        client_session client{game_config(2), w, step_game, net.connect({}, {})};
        step_requests requests = client.tick_requests(bytes_of(game_input{}));
        CHECK(requests.done());
        CHECK_FALSE(requests.result());
        CHECK(requests.next() == nullptr);
        CHECK(client.current_frame() == 0);
    }
    SECTION("a stalled client") {
        sim_match m{25, 2};
        auto &c = m.add_client({20, 0, 0.0}, {20, 0, 0.0});
        m.run(1500);
        REQUIRE(c.session->state() == client_state::running);
        m.net.set_blackout(0, true); // no confirmed frame arrives any more: the window fills
        const auto stalls = c.session->stats().stall_frames;
        bool stalled = false;
        for (int tick = 0; tick < 4 * static_cast<int>(m.config.prediction_window) && !stalled; ++tick) {
            const frame_t before = c.session->current_frame();
            step_requests requests = c.session->tick_requests(bytes_of(game_input{}));
            if (requests.done()) {
                stalled = true;
                CHECK_FALSE(requests.result());
                CHECK(requests.next() == nullptr);
                CHECK(c.session->current_frame() == before);
                CHECK(c.session->stats().stall_frames == stalls + 1);
            } else {
                while (const step_request *r = requests.next()) step_game(*r->target, r->inputs);
                CHECK(requests.result());
            }
        }
        CHECK(stalled);
        CHECK(c.session->state() == client_state::running); // a stall is not a failure
    }
    SECTION("a server whose match has ended") {
        sim_match m{25, 2};
        m.add_client({20, 0, 0.0}, {20, 0, 0.0});
        m.run(500);
        const frame_t last = m.server->frame();
        m.server->end_match();
        step_requests requests = m.server->tick_requests();
        CHECK(requests.done());
        CHECK_FALSE(requests.result());
        CHECK(requests.next() == nullptr);
        CHECK(m.server->frame() == last);
    }
    SECTION("default-constructed requests") {
        step_requests none;
        CHECK(none.done());
        CHECK_FALSE(none.result());
        CHECK(none.next() == nullptr);
        none.abandon("nothing to abandon");
        CHECK(none.done());
    }
}

TEST_CASE("coroutine_memory hands out two blocks at a time and reuses them", "[net][poll]") {
    internal::coroutine_memory mem;
    void *first = mem.allocate(64);
    void *second = mem.allocate(64); // the next tick's frame, made before the old one is dropped
    REQUIRE(first != nullptr);
    REQUIRE(second != nullptr);
    CHECK(first != second);
    CHECK(mem.allocate(64) == nullptr); // both busy: the caller falls back to the heap
    mem.release(first);
    {
        allocation_counter counter;
        CHECK(mem.allocate(64) == first); // the same block, no allocation
        mem.release(first);
        CHECK(mem.allocate(16) == first); // a smaller frame fits too
        mem.release(first);
        mem.release(second);
        CHECK(counter.count() == 0);
    }
    {
        allocation_counter counter;
        void *bigger = mem.allocate(4096); // outgrown: one new block, kept from now on
        REQUIRE(bigger != nullptr);
        CHECK(counter.count() == 1);
        mem.release(bigger);
        CHECK(mem.allocate(4096) == bigger);
        mem.release(bigger);
        CHECK(counter.count() == 1);
    }
}

TEST_CASE("a step program reuses its owner's blocks, and a third live one comes from the heap and still works",
          "[net][poll]") {
    program_owner owner;
    {
        step_requests warm = owner.frames(0, 2); // the first program sizes a block
        CHECK(owner.blocks_free() == 1);
        CHECK(drain(warm) == std::vector<frame_t>{0, 1});
    }
    CHECK(owner.blocks_free() == 2);
    {
        allocation_counter counter;
        step_requests again = owner.frames(2, 2);
        while (again.next() != nullptr) {}
        CHECK(again.result());
        CHECK(counter.count() == 0); // the same block
    }
    step_requests first = owner.frames(10, 3);
    REQUIRE(first.next() != nullptr); // outstanding: its block is busy
    step_requests second = owner.frames(30, 2);
    REQUIRE(second.next() != nullptr); // the other block
    CHECK(owner.blocks_free() == 0);
    std::size_t heap = 0;
    {
        allocation_counter counter;
        step_requests third = owner.frames(20, 2);
        heap = counter.count();
        CHECK(drain(third) == std::vector<frame_t>{20, 21});
        CHECK(third.result());
    }
    CHECK(heap >= 1);
    CHECK(owner.blocks_free() == 0); // freeing the heap frame left the two blocks alone
    CHECK(drain(first) == std::vector<frame_t>{11, 12});
    CHECK(first.result());
    first = step_requests{};
    CHECK(owner.blocks_free() == 1);
    second = step_requests{};
    CHECK(owner.blocks_free() == 2);
}

TEST_CASE("poll-mode ticks and rollbacks allocate nothing once warm", "[net][poll][allocations]") {
    sim_match m{26, 2};
    m.add_client(lossy_link, lossy_link);
    m.add_client(lossy_link, lossy_link);
    const auto tick_server = [](server_session &s) {
        step_requests requests = s.tick_requests();
        while (const step_request *r = requests.next()) step_game(*r->target, r->inputs);
    };
    const auto tick_client = [](std::size_t, client_session &s, const game_input &in) {
        step_requests requests = s.tick_requests(bytes_of(in));
        while (const step_request *r = requests.next()) step_game(*r->target, r->inputs);
        return true;
    };
    const allocation_window window = measure_warm_allocations(m, [&] { m.step(tick_server, tick_client); });
    INFO("rollbacks during the measured window: " << window.rollbacks);
    CHECK(window.rollbacks > 0);
    CHECK(window.allocations == 0);
}

TEST_CASE("session_config_problem and server_options_problem name each rule, a valid config passes",
          "[net][poll][config]") {
    const session_config valid = game_config(2);
    CHECK(session_config_problem(valid, true).empty());
    CHECK(session_config_problem(valid, false).empty());
    struct rule {
        void (*set)(session_config &);
        const char *message;
        bool client_too;
    };
    const rule rules[] = {
        {[](session_config &c) { c.max_players = 0; }, "session_config: max_players 0 is outside 1..32", false},
        {[](session_config &c) { c.max_players = 33; }, "session_config: max_players 33 is outside 1..32", false},
        {[](session_config &c) { c.tick_hz = 0; }, "session_config: tick_hz must be positive", false},
        {[](session_config &c) { c.input_delay = 61; }, "session_config: input_delay 61 exceeds 60 frames", false},
        {[](session_config &c) { c.max_input_delay = 61; }, "session_config: max_input_delay 61 exceeds 60 frames",
         false},
        {[](session_config &c) { c.input_size = 0; }, "session_config: input_size 0 is outside 1..64", true},
        {[](session_config &c) { c.input_size = 65; }, "session_config: input_size 65 is outside 1..64", true},
        {[](session_config &c) { c.prediction_window = 0; }, "session_config: prediction_window 0 is outside 1..256",
         true},
        {[](session_config &c) { c.prediction_window = 257; },
         "session_config: prediction_window 257 is outside 1..256", true},
    };
    for (const rule &r : rules) {
        session_config c = valid;
        r.set(c);
        INFO(r.message);
        CHECK(session_config_problem(c, true) == r.message);
        // A client adopts the match settings from the welcome: it checks only its own.
        CHECK(session_config_problem(c, false) == (r.client_too ? std::string{r.message} : std::string{}));
    }
    // The edges themselves are allowed.
    session_config edges = valid;
    edges.max_players = 32;
    edges.input_delay = edges.max_input_delay = 60;
    edges.input_size = 64;
    edges.prediction_window = 256;
    CHECK(session_config_problem(edges, true).empty());

    CHECK(server_options_problem(server_options{}).empty());
    const std::pair<void (*)(server_options &), const char *> options[] = {
        {[](server_options &o) { o.hello_timeout_ms = 0; }, "server_options: hello_timeout_ms must be positive"},
        {[](server_options &o) { o.upload_timeout_ms = 0; }, "server_options: upload_timeout_ms must be positive"},
        {[](server_options &o) { o.load_timeout_ms = 0; }, "server_options: load_timeout_ms must be positive"},
        {[](server_options &o) { o.forensic_interval = 0; }, "server_options: forensic_interval must be positive"},
    };
    for (const auto &[set, message] : options) {
        server_options o;
        set(o);
        CHECK(server_options_problem(o) == message);
    }
}

TEST_CASE("sessions report what session_config_problem and server_options_problem say as misuse",
          "[net][poll][config]") {
    sim_network net{27};
    world w{game_schema()};
    session_config bad = game_config(2);
    bad.tick_hz = 0;
    REQUIRE_MISUSE(server_session(bad, w, step_game, net.server()), "session_config: tick_hz must be positive");
    server_options slow;
    slow.forensic_interval = 0;
    REQUIRE_MISUSE(server_session(game_config(2), w, step_game, net.server(), slow),
                   "server_options: forensic_interval must be positive");
    session_config tiny = game_config(2);
    tiny.prediction_window = 0;
    REQUIRE_MISUSE(client_session(tiny, w, step_game, net.connect({}, {})),
                   "session_config: prediction_window 0 is outside 1..256");
    // The match settings a client adopts are not its to check.
    bad.input_delay = 200;
    CHECK_NOTHROW(client_session(bad, w, step_game, net.connect({}, {})));
}

TEST_CASE("step_requests::next rethrows what a session callback threw, once", "[net][poll]") {
    sim_match m{28, 2};
    auto &c = m.add_client(lossy_link, lossy_link);
    m.run(1500);
    REQUIRE(c.session->state() == client_state::running);

    SECTION("the server's on_confirmed") {
        bool armed = true;
        m.server->on_confirmed([&armed](const frame_inputs &in, const world &, std::uint64_t) {
            if (armed) throw game_error("recorder failed at frame " + std::to_string(in.frame()));
        });
        const frame_t f = m.server->frame();
        step_requests requests = m.server->tick_requests();
        const step_request *r = requests.next();
        REQUIRE(r != nullptr);
        step_game(*r->target, r->inputs);
        // The callback runs after the step, inside the session's tick: the caller gets it here.
        CHECK_THROWS_MATCHES(requests.next(), game_error,
                             Catch::Matchers::Message("recorder failed at frame " + std::to_string(f)));
        CHECK(requests.done());
        CHECK(requests.next() == nullptr); // thrown once
        CHECK_FALSE(requests.result());
        armed = false;
        // The request had been stepped: nothing was abandoned.
        for (session_event ev; m.server->next_event(ev);) CHECK(ev.kind != session_event_kind::session_failed);
    }
    SECTION("the client's on_confirmed_hash") {
        bool armed = true;
        c.session->on_confirmed_hash([&armed](frame_t f, std::uint64_t) {
            if (armed) throw game_error("hash hook failed at frame " + std::to_string(f));
        });
        std::size_t caught = 0, from_call = 0;
        std::string message;
        for (int ms = 0; ms < 1000 && caught == 0; ++ms)
            m.step([](server_session &s) { s.tick(); },
                   [&](std::size_t, client_session &s, const game_input &in) {
                       step_requests requests;
                       try {
                           requests = s.tick_requests(bytes_of(in));
                       } catch (...) {
                           ++from_call;
                           return false;
                       }
                       try {
                           while (const step_request *r = requests.next()) step_game(*r->target, r->inputs);
                       } catch (const game_error &e) {
                           ++caught;
                           message = e.what();
                           armed = false;
                           CHECK(requests.done());
                           CHECK(requests.next() == nullptr);
                           return false;
                       }
                       return true;
                   });
        CHECK(from_call == 0); // tick_requests itself never throws what the body threw
        CHECK(caught == 1);
        CHECK_THAT(message, Catch::Contains("hash hook failed at frame"));
        CHECK(sim_match::count(c.events, session_event_kind::session_failed) == 0);
    }
}

TEST_CASE("tick() whose step throws passes the exception on and ends the session with session_failed", "[net][poll]") {
    // tick() is tick_requests() stepped with the session's step: a step that throws leaves its
    // request outstanding, as dropping it would.
    sim_match m{29, 2};
    sim_network &net = m.net;
    world w{game_schema()};
    init_game(w);
    bool armed = false;
    frame_t thrown_at = no_frame;
    client_session client{m.config, w,
                          [&](world &target, const frame_inputs &in) {
                              if (armed) {
                                  thrown_at = in.frame();
                                  throw game_error("the step failed");
                              }
                              step_game(target, in);
                          },
                          net.connect({20, 0, 0.0}, {20, 0, 0.0})};
    std::vector<session_event> events;
    bool threw = false;
    for (int ms = 0; ms < 3000 && !threw; ++ms) {
        m.step();
        client.poll(m.now);
        armed = client.state() == client_state::running && ms > 1000;
        while (!threw && client.should_tick(m.now)) {
            try {
                client.tick(bytes_of(game_input{}));
            } catch (const game_error &) {
                threw = true;
            }
        }
        for (session_event ev; client.next_event(ev);) events.push_back(ev);
    }
    REQUIRE(threw);
    CHECK(client.state() == client_state::disconnected);
    REQUIRE(sim_match::count(events, session_event_kind::session_failed) == 1);
    for (const auto &e : events)
        if (e.kind == session_event_kind::session_failed)
            CHECK(e.text == "the step of frame " + std::to_string(thrown_at) + " threw: the step failed");
}

TEST_CASE("a tick or a poll while a tick's request is outstanding is misuse, and the outstanding tick goes on",
          "[net][poll]") {
    sim_match m{31, 2};
    world w{game_schema()};
    init_game(w);
    client_session client{m.config, w, step_game, m.net.connect({20, 0, 0.0}, {20, 0, 0.0})};
    step_requests held;
    for (int ms = 0; ms < 3000 && held.done(); ++ms) {
        m.step();
        client.poll(m.now);
        if (client.state() == client_state::running && client.should_tick(m.now))
            held = client.tick_requests(bytes_of(game_input{}));
        if (held.done()) held = {};
    }
    const step_request *r = held.next();
    REQUIRE(r != nullptr);
    const frame_t frame = r->inputs.frame();
    // Before the fix a second tick started on the half-stepped world and the first one's end
    // then broke the session.
    REQUIRE_MISUSE(client.tick_requests(bytes_of(game_input{})).next(),
                   "client_session::tick: the previous tick's step requests are not all stepped");
    REQUIRE_MISUSE(client.poll(m.now), "client_session::poll: the previous tick's step requests are not all stepped");
    step_game(*r->target, r->inputs);
    while ((r = held.next()) != nullptr) step_game(*r->target, r->inputs);
    CHECK(client.state() == client_state::running);
    CHECK(client.current_frame() > frame);
    CHECK_NOTHROW(client.poll(m.now)); // the tick is over
}

// The requests of the previous tick are still alive while the next tick's are made when a
// caller reassigns one variable (`requests = client.tick_requests(input);`, the natural loop,
// and what the C API's handles do): with one reused block the new frame came from the heap every
// other tick; the second block covers it (docs/net.md, "Poll mode": no allocation per tick).
TEST_CASE("poll-mode ticks that reassign one requests variable allocate nothing once warm",
          "[net][poll][allocations]") {
    sim_match m{26, 2};
    m.add_client(lossy_link, lossy_link);
    m.server->on_confirmed(nullptr);
    m.clients[0]->session->on_confirmed_hash(nullptr);
    step_requests server_requests, client_requests;
    const auto tick_server = [&](server_session &s) {
        server_requests = s.tick_requests();
        while (const step_request *r = server_requests.next()) step_game(*r->target, r->inputs);
    };
    const auto tick_client = [&](std::size_t, client_session &s, const game_input &in) {
        client_requests = s.tick_requests(bytes_of(in));
        while (const step_request *r = client_requests.next()) step_game(*r->target, r->inputs);
        return true;
    };
    for (int ms = 0; ms < 5000; ++ms) m.step(tick_server, tick_client);
    std::size_t allocations = 0;
    {
        allocation_counter counter;
        for (int ms = 0; ms < 1000; ++ms) m.step(tick_server, tick_client);
        allocations = counter.count();
    }
    CHECK(allocations == 0);
}
