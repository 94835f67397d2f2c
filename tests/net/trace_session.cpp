// The sessions' traces (client_options::trace, server_options::trace) on seeded simulated
// matches, judged by the strict checker and compared with the sessions' own stats
// (docs/net.md, "Reading a trace").
#include <catch2/catch.hpp>

#include <common/sim_match.hpp>
#include <common/temp_dir.hpp>
#include <common/trace_checker.hpp>

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
        CHECK(c.summary.nested_in.at("step<tick") == c.summary.slices.at("step"));
        CHECK(c.summary.nested_in.at("save<tick") == c.summary.slices.at("save"));
        CHECK(c.summary.slices.at("step") + st.stall_frames >= client_ticks[i]); // a stalled tick does not step
        CHECK(c.summary.counters.at("rtt_ms") > 0);
        CHECK(c.summary.slices.at("receive") > 0);
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
