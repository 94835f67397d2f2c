// The flight recorder (docs/net.md, "Reading a trace"): the trace kept is written, through a
// trace_writer, when a desync, a resynchronization or a stall happens, with no one asking.
#include <catch2/catch.hpp>

#include <common/sim_match.hpp>
#include <common/temp_dir.hpp>
#include <common/trace_checker.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {

/// Names in @p names that end with @p suffix.
std::vector<std::string> ending(const std::vector<std::string> &names, std::string_view suffix) {
    std::vector<std::string> out;
    for (const auto &n : names)
        if (n.ends_with(suffix)) out.push_back(n);
    return out;
}

} // namespace

TEST_CASE("a desync writes the server's trace beside its forensic files and the client's flight recording",
          "[net][trace][flight][forensics]") {
    temp_dir server_dir, client_dir;
    // Writers whose queues hold every dump of the run, so none depends on how fast the writer
    // thread is (each session's own writer holds 2 and drops the rest, counted).
    trace_writer server_writer{trace_writer_options{.queue = 64}}, client_writer{trace_writer_options{.queue = 64}};
    sim_match m{13, 2};
    server_options so;
    so.forensics_dir = server_dir.path();
    so.trace.records = 1u << 14;
    so.flight_writer = &server_writer;
    m.use_server_options(so);
    client_options co;
    co.flight_recorder_dir = client_dir.path(); // trace.records 0: the flight recorder's default ring
    co.flight_writer = &client_writer;
    auto &bad = m.add_two_players(co);
    REQUIRE(bad.session->trace() != nullptr);
    CHECK(bad.session->trace()->capacity() == flight_recorder_records);
    m.run(3000);
    CHECK(client_dir.entries().empty()); // nothing went wrong yet: nothing written
    m.corrupt_ships(bad);
    REQUIRE(m.server->flight_recorder() != nullptr);
    m.server->flight_recorder()->flush();
    REQUIRE(bad.session->flight_recorder() != nullptr);
    bad.session->flight_recorder()->flush();
    REQUIRE(m.server->totals().desyncs >= 1);

    // The server: one trace per desync file stem, named like the record beside it.
    const auto files = server_dir.entries();
    const auto records = ending(files, ".txt");
    const auto traces = ending(files, "-trace.json");
    REQUIRE_FALSE(records.empty());
    REQUIRE(traces.size() >= records.size());
    for (const auto &rec : records) {
        const std::string trace = rec.substr(0, rec.size() - 4) + "-trace.json";
        INFO(trace);
        REQUIRE(std::find(traces.begin(), traces.end(), trace) != traces.end());
        const auto c = check_trace_file(server_dir / trace);
        INFO((c.problems.empty() ? std::string{} : c.problems.front()));
        REQUIRE(c.ok());
        CHECK(c.summary.slices.at("tick") > 0);
        CHECK(c.summary.instants.count("desync_detected") == 1); // dumped after the event
    }
    CHECK(server_writer.failed() == 0);
    CHECK(server_writer.dropped() == 0);

    // The client: a dump for its desync and one for its resynchronization, sorted by frame.
    CHECK(client_writer.dropped() == 0);
    CHECK(bad.session->flight_recorder() == &client_writer);
    const auto flights = client_dir.entries();
    const auto desyncs = ending(flights, "-desync.json");
    const auto resyncs = ending(flights, "-resync.json");
    CHECK(desyncs.size() ==
          std::min<std::size_t>(sim_match::count(bad.events, session_event_kind::desync_detected), max_flight_dumps));
    REQUIRE_FALSE(desyncs.empty());
    REQUIRE_FALSE(resyncs.empty());
    CHECK(desyncs.front().starts_with("flight-"));
    CHECK(desyncs.front().size() == std::string{"flight-0000000000-desync.json"}.size());
    CHECK(desyncs.front() < resyncs.front()); // the resynchronization comes later: a later frame
    for (const auto &f : flights) {
        const auto c = check_trace_file(client_dir / f);
        INFO(f);
        CHECK(c.ok());
    }
    CHECK(check_trace_file(client_dir / desyncs.front()).summary.instants.count("desync_detected") == 1);
}

TEST_CASE("a server without a trace writes no trace file and spends none of max_forensic_files on one",
          "[net][trace][flight][forensics]") {
    temp_dir dir;
    sim_match m{13, 2};
    server_options so;
    so.forensics_dir = dir.path();
    m.use_server_options(so);
    auto &bad = m.add_two_players();
    m.run(3000);
    m.corrupt_ships(bad);
    CHECK(m.server->flight_recorder() == nullptr);
    CHECK(ending(dir.entries(), "-trace.json").empty());
    CHECK_FALSE(ending(dir.entries(), ".txt").empty());
}

TEST_CASE("max_forensic_files counts the trace files of unverified desyncs", "[net][trace][flight][forensics]") {
    temp_dir dir;
    sim_match m{13, 2};
    server_options so;
    so.forensics_dir = dir.path();
    so.trace.records = 4096;
    so.max_forensic_files = 1;
    so.max_uploads_per_client = 0; // no upload: every mismatch is unverified
    m.use_server_options(so);
    auto &bad = m.add_two_players();
    m.run(3000);
    for (int i = 0; i < 2; ++i) { // two desyncs, each resynchronized
        m.corrupt_ships(bad);
    }
    m.server->flight_recorder()->flush();
    REQUIRE(sim_match::count(m.server_events, session_event_kind::desync_unverified) >= 2);
    const auto traces = ending(dir.entries(), "-trace.json");
    REQUIRE(traces.size() == 1); // the first; the rest are over the cap
    const auto first = std::find_if(m.server_events.begin(), m.server_events.end(), [](const session_event &e) {
        return e.kind == session_event_kind::desync_unverified;
    });
    CHECK(traces.front() == "desync-slot" + std::to_string(first->slot) + "-frame" + std::to_string(first->frame + 1u) +
                                "-trace.json"); // the stem its forensic files would have
    CHECK(check_trace_file(dir / traces.front()).summary.instants.count("desync_unverified") >= 1);
}

TEST_CASE("a client's stalls are dumped at most once per 5 s of session time and 8 times a session",
          "[net][trace][flight]") {
    temp_dir dir;
    sim_match m{77, 1};
    client_options co;
    co.flight_recorder_dir = dir.path();
    co.trace.records = 2048;
    auto &c = m.add_client({10, 1, 0.0}, {10, 1, 0.0}, co);
    m.run(1500);
    REQUIRE(c.session->state() == client_state::running);
    REQUIRE(c.session->trace()->capacity() == 2048); // a ring asked for is kept as asked

    // Short blackouts, 1.5 s apart: each one stalls the client, never long enough to drop it.
    const auto stalls = [&] { return sim_match::count(c.events, session_event_kind::wait_recommended); };
    std::vector<std::uint64_t> stall_times;
    const auto blackout_cycle = [&] {
        const std::size_t before = stalls();
        m.net.set_blackout(0, true);
        m.run(1000);
        m.net.set_blackout(0, false);
        m.run(500);
        if (stalls() > before) stall_times.push_back(m.now);
        // Virtual time outruns the writer: wait for it, as 5 s of real time would.
        c.session->flight_recorder()->flush();
    };
    for (int i = 0; i < 8; ++i) blackout_cycle(); // 12 s
    c.session->flight_recorder()->flush();
    REQUIRE(c.session->state() == client_state::running);
    REQUIRE(stall_times.size() == 8);
    const std::size_t early = ending(dir.entries(), "-stall.json").size();
    // 12 s of session time: stall dumps at 0, >= 5 and >= 10 s from the first at most.
    CHECK(early >= 2);
    CHECK(early <= 3);
    for (const auto &f : dir.entries()) CHECK(check_trace_file(dir / f).ok());

    for (int i = 0; i < 40; ++i) blackout_cycle(); // 60 s more: the session's cap
    c.session->flight_recorder()->flush();
    CHECK(dir.entries().size() == max_flight_dumps);
    CHECK(c.session->flight_recorder()->written() == max_flight_dumps);
    CHECK(c.session->flight_recorder()->dropped() == 0);
}

TEST_CASE("a flight recording that cannot be written is reported as recording_failed", "[net][trace][flight]") {
    temp_dir dir;
    sim_match m{77, 1};
    client_options co;
    co.flight_recorder_dir = dir / "missing"; // never created
    auto &c = m.add_client({10, 1, 0.0}, {10, 1, 0.0}, co);
    m.run(1500);
    m.net.set_blackout(0, true);
    m.run(1000);
    m.net.set_blackout(0, false);
    c.session->flight_recorder()->flush();
    m.run(100); // the next poll reports it
    REQUIRE(sim_match::count(c.events, session_event_kind::wait_recommended) >= 1);
    REQUIRE(sim_match::count(c.events, session_event_kind::recording_failed) == 1);
    for (const auto &e : c.events)
        if (e.kind == session_event_kind::recording_failed) {
            CHECK(e.path.starts_with((dir / "missing" / "flight-").string()));
            CHECK(e.path.ends_with("-stall.json"));
        }
}
