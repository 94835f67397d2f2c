// The sessions' traces (client_options::trace, server_options::trace) on seeded simulated
// matches, judged by the strict checker and compared with the sessions' own stats
// (docs/net.md, "Reading a trace").
#include <catch2/catch.hpp>

#include <common/sim_match.hpp>
#include <common/temp_dir.hpp>
#include <common/trace_checker.hpp>

#include <retcon/snapshot/replay.hpp>

#include <map>
#include <string>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {
const link_conditions lossy{40, 10, 0.05, 0.0, 0.02};

/// Events per kind name, as the trace's instants are named.
std::map<std::string, std::size_t> by_kind(const std::vector<session_event> &events) {
    std::map<std::string, std::size_t> n;
    for (const auto &e : events) ++n[to_string(e.kind)];
    return n;
}
} // namespace

TEST_CASE("a seeded match's traces pass the strict checker and agree with the sessions' stats", "[net][trace]") {
    const trace_options on{.records = 1u << 18};
    sim_match m{41, 2};
    m.use_server_options({.trace = on});
    m.add_client(lossy, lossy, {.trace = on});
    m.add_client(lossy, lossy, {.trace = on});
    std::size_t server_ticks = 0;
    std::vector<std::size_t> client_ticks(2);
    for (int ms = 0; ms < 6000; ++ms)
        m.step(
            [&](server_session &s) {
                ++server_ticks;
                s.tick();
            },
            [&](std::size_t i, client_session &s, const game_input &in) {
                if (s.state() == client_state::running) ++client_ticks[i];
                s.tick(in);
                return true;
            });

    for (std::size_t i = 0; i < 2; ++i) {
        INFO("client " << i);
        client_session &s = *m.clients[i]->session;
        REQUIRE(s.trace() != nullptr);
        CHECK(s.trace()->overwritten() == 0);
        const trace_check c = check_trace(s.trace()->json());
        INFO((c.ok() ? std::string{} : c.problems.front()));
        REQUIRE(c.ok());
        const session_stats &st = s.stats();
        REQUIRE(st.rollbacks > 0);
        CHECK(c.summary.slices.at("tick") == client_ticks[i]);
        CHECK(c.summary.slices.at("rollback") == st.rollbacks);
        CHECK(c.summary.nested_in.at("rollback<tick") == st.rollbacks);
        CHECK(c.summary.arg_sums.at("rollback.depth") == static_cast<double>(st.resimulated));
        CHECK(c.summary.slices.at("resimulate") == st.resimulated);
        CHECK(c.summary.nested_in.at("resimulate<rollback") == st.resimulated);
        // A step per tick that stepped and per frame re-simulated; an opaque step has no stages.
        CHECK(c.summary.nested_in.at("step<tick") + c.summary.nested_in.at("step<resimulate") ==
              c.summary.slices.at("step"));
        CHECK(c.summary.nested_in.at("step<resimulate") == st.resimulated);
        CHECK_FALSE(c.summary.slices.contains("apply inputs"));
        CHECK(c.summary.nested_in.at("save<tick") == c.summary.slices.at("save"));
        CHECK(c.summary.slices.at("step") + st.stall_frames >= client_ticks[i]); // a stalled tick does not step
        CHECK(c.summary.counters.at("rtt_ms") > 0);
        CHECK(c.summary.counters.at("bytes_in_per_s") > 0);
        CHECK(c.summary.counters.at("bytes_out_per_s") > 0);
        // One receive per packet, inside the poll that handled it, the bytes adding up.
        CHECK(c.summary.slices.at("receive") >= c.summary.slices.at("poll"));
        CHECK(c.summary.nested_in.at("receive<poll") == c.summary.slices.at("receive"));
        CHECK(c.summary.arg_sums.at("receive.bytes") == c.summary.arg_sums.at("poll.bytes"));
        CHECK(c.summary.arg_sums.at("receive.kind") >=
              static_cast<double>(c.summary.slices.at("receive"))); // kinds start at 1
        // Every event the game got is an instant of the same name, with the same text.
        const auto kinds = by_kind(m.clients[i]->events);
        REQUIRE(kinds.contains("synchronized"));
        for (const auto &[kind, n] : kinds) CHECK(c.summary.instants.at(kind) == n);
    }

    REQUIRE(m.server->trace() != nullptr);
    const trace_check c = check_trace(m.server->trace()->json());
    INFO((c.ok() ? std::string{} : c.problems.front()));
    REQUIRE(c.ok());
    CHECK(c.summary.slices.at("tick") == server_ticks);
    for (const char *part : {"confirm", "step", "hash", "record", "send"})
        CHECK(c.summary.nested_in.at(std::string{part} + "<tick") == server_ticks);
    CHECK(c.summary.counters.at("players") >= 2);
    CHECK(c.summary.counters.at("bytes_out") > 0);
    CHECK(c.summary.nested_in.at("receive<poll") == c.summary.slices.at("receive"));
    CHECK(c.summary.arg_sums.at("receive.bytes") == c.summary.arg_sums.at("poll.bytes"));
    CHECK_FALSE(c.summary.slices.contains("keyframe")); // not recording
    const auto kinds = by_kind(m.server_events);
    REQUIRE(kinds.at("player_joined") == 2);
    for (const auto &[kind, n] : kinds) CHECK(c.summary.instants.at(kind) == n);
    for (const auto &e : m.server_events)
        if (e.kind == session_event_kind::player_joined) CHECK(e.text.empty() == false);
}

TEST_CASE("write_trace writes the kept trace, and says so when the session keeps none", "[net][trace]") {
    temp_dir dir;
    sim_match m{42, 2};
    m.use_server_options({.trace = {.records = 4096}});
    auto &a = m.add_client(lossy, lossy, {.trace = {.records = 4096}});
    auto &b = m.add_client(lossy, lossy);
    m.run(1500);
    REQUIRE(a.session->write_trace(dir.path() / "client.json").ok());
    REQUIRE(m.server->write_trace(dir.path() / "server.json").ok());
    for (const char *name : {"client.json", "server.json"}) {
        const trace_check c = check_trace_file(dir.path() / name);
        INFO(name << ": " << (c.ok() ? std::string{} : c.problems.front()));
        CHECK(c.ok());
        CHECK(c.summary.slices.at("tick") > 0);
    }
    CHECK(b.session->trace() == nullptr);
    const auto none = b.session->write_trace(dir.path() / "none.json");
    CHECK(none.code() == errc::invalid_argument);
    CHECK_FALSE(std::filesystem::exists(dir.path() / "none.json"));
    CHECK(a.session->write_trace(dir.path() / "no" / "dir.json").code() == errc::io);
}

TEST_CASE("a trace that is off keeps nothing and never reads its clock", "[net][trace]") {
    int reads = 0;
    const trace_options off{.records = 0,
                            .clock = {[](void *c) {
                                          ++*static_cast<int *>(c);
                                          return std::uint64_t{0};
                                      },
                                      &reads}};
    sim_match m{43, 2};
    m.use_server_options({.trace = off});
    auto &a = m.add_client(lossy, lossy, {.trace = off});
    m.add_client(lossy, lossy, {.trace = off});
    m.run(3000);
    REQUIRE(a.session->stats().rollbacks > 0);
    CHECK(a.session->trace() == nullptr);
    CHECK(m.server->trace() == nullptr);
    CHECK(reads == 0);
}

TEST_CASE("a trace ring shorter than the match keeps the newest ticks, still valid", "[net][trace]") {
    sim_match m{44, 2};
    m.use_server_options({.trace = {.records = 300}});
    auto &a = m.add_client(lossy, lossy, {.trace = {.records = 300}});
    m.add_client(lossy, lossy);
    m.run(4000);
    for (const trace_recorder *r : {a.session->trace(), m.server->trace()}) {
        CHECK(r->size() == 300);
        CHECK(r->overwritten() > 0);
        const trace_check c = check_trace(r->json());
        INFO((c.ok() ? std::string{} : c.problems.front()));
        CHECK(c.ok());
    }
}

TEST_CASE("a structured step's stages are slices inside every step, and recorded keyframes are slices",
          "[net][trace]") {
    temp_dir dir;
    const trace_options on{.records = 1u << 18};
    sim_match m{45, 2, game_config(2), {.server_step = structured_game_step()}};
    server_options so{.trace = on};
    so.record_path = dir.path() / "match.rcr";
    so.record_settings.keyframe_interval = 50;
    m.use_server_options(so);
    m.add_client(lossy, lossy, {.trace = on}, structured_game_step());
    m.add_client(lossy, lossy, {.trace = on}); // opaque: retcon sees no stages
    std::size_t server_ticks = 0;
    std::vector<std::size_t> stepped(2);
    const auto play = [&] {
        m.step(
            [&](server_session &s) {
                ++server_ticks;
                s.tick();
            },
            [&](std::size_t i, client_session &s, const game_input &in) {
                if (s.tick(in)) ++stepped[i];
                return true;
            });
    };
    for (int ms = 0; ms < 5000; ++ms) play();
    m.server->end_match();
    while (!m.server->finished()) play();

    const char *const stages[] = {"apply inputs", "bullets", "ttl"};
    // Each stage once per step, directly inside it, in order (its stage argument) and on the
    // step's frame.
    const auto check_stages = [&](const trace_summary &t, std::size_t steps) {
        REQUIRE(t.slices.at("step") == steps);
        for (std::size_t k = 0; k < std::size(stages); ++k) {
            const std::string name = stages[k];
            INFO(name);
            CHECK(t.slices.at(name) == steps);
            CHECK(t.nested_in.at(name + "<step") == steps);
            CHECK(t.arg_sums.at(name + ".stage") == static_cast<double>(k * steps));
            CHECK(t.arg_sums.at(name + ".frame") == t.arg_sums.at("step.frame"));
        }
    };

    client_session &a = *m.clients[0]->session;
    const trace_check ca = check_trace(a.trace()->json());
    INFO((ca.ok() ? std::string{} : ca.problems.front()));
    REQUIRE(ca.ok());
    REQUIRE(a.stats().rollbacks > 0);
    check_stages(ca.summary, stepped[0] + a.stats().resimulated); // ticks × stages, re-simulations too
    CHECK(ca.summary.nested_in.at("step<resimulate") == a.stats().resimulated);

    const trace_check cb = check_trace(m.clients[1]->session->trace()->json());
    REQUIRE(cb.ok());
    for (const char *name : stages) CHECK_FALSE(cb.summary.slices.contains(name));

    const trace_check cs = check_trace(m.server->trace()->json());
    INFO((cs.ok() ? std::string{} : cs.problems.front()));
    REQUIRE(cs.ok());
    check_stages(cs.summary, server_ticks);
    for (const auto &e : m.server_events) REQUIRE(e.kind != session_event_kind::recording_failed);
    const auto replay = replay_reader::open(so.record_path);
    REQUIRE(replay.ok());
    // The starting keyframe is written before the first tick, outside any slice.
    const std::size_t keyframes = replay->keyframes().size() - 1u;
    REQUIRE(keyframes >= 3);
    CHECK(cs.summary.slices.at("keyframe") == keyframes);
    CHECK(cs.summary.nested_in.at("keyframe<record") == keyframes);
    CHECK(cs.summary.arg_sums.at("keyframe.bytes") > 0);
    CHECK(cs.summary.arg_sums.at("keyframe.bytes") < static_cast<double>(std::filesystem::file_size(so.record_path)));
}

TEST_CASE("in poll mode the caller runs the step: a structured step's stages are not traced", "[net][trace]") {
    const trace_options on{.records = 1u << 16};
    const step_function step = structured_game_step();
    sim_match m{46, 2, game_config(2), {.server_step = step}};
    m.use_server_options({.trace = on});
    m.add_client(lossy, lossy, {.trace = on}, step);
    m.add_client(lossy, lossy);
    std::size_t stepped = 0;
    for (int ms = 0; ms < 2000; ++ms)
        m.step([](server_session &s) { s.tick(); },
               [&](std::size_t i, client_session &s, const game_input &in) {
                   if (i != 0) {
                       s.tick(in);
                       return true;
                   }
                   auto requests = s.tick_requests(std::as_bytes(std::span{&in, 1}));
                   while (const step_request *r = requests.next()) {
                       step(*r->target, r->inputs);
                       ++stepped;
                   }
                   return true;
               });
    const trace_check c = check_trace(m.clients[0]->session->trace()->json());
    INFO((c.ok() ? std::string{} : c.problems.front()));
    REQUIRE(c.ok());
    REQUIRE(stepped > 0);
    CHECK(c.summary.slices.at("step") == stepped);
    CHECK_FALSE(c.summary.slices.contains("apply inputs"));
    CHECK_FALSE(c.summary.slices.contains("bullets"));
}
