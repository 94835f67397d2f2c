#include <catch2/catch.hpp>

#include <retcon/net/trace_writer.hpp>

#include <common/counting_allocator.hpp>
#include <common/temp_dir.hpp>
#include <common/trace_checker.hpp>

#include <fstream>
#include <sstream>
#include <string>

using namespace retcon;

namespace {
std::uint64_t fake_now = 0;
trace_options fake(std::uint32_t records) {
    return {.records = records, .clock = {[](void *) { return fake_now; }, nullptr}, .process_name = "w", .pid = 9};
}

/// A recorder with @p ticks ticks and an instant with text, the ring turned over when small.
void fill(trace_recorder &r, int ticks) {
    for (int i = 0; i < ticks; ++i) {
        fake_now = static_cast<std::uint64_t>(i) * 16000u;
        r.complete(trace_id(trace_name::tick), fake_now, fake_now + 900u, trace_track::tick, i);
        r.counter(trace_id(trace_name::rtt_ms), 10.0 + i);
    }
    r.instant(trace_id(trace_name::stall), "waiting \"for\" inputs");
}

std::string read(const std::filesystem::path &p) {
    std::ifstream in{p, std::ios::binary};
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}
} // namespace

TEST_CASE("a trace_snapshot formats exactly as its recorder did when copied", "[net][trace][writer]") {
    trace_recorder r{fake(8)}; // small: the ring turns over and texts are kept
    r.intern("physics", "bodies");
    fill(r, 20);
    trace_snapshot s;
    r.snapshot_into(s);
    CHECK(s.size() == r.size());
    const std::string before = r.json();
    CHECK(s.json() == before);
    r.complete(trace_id(trace_name::tick), 1, 2); // the copy is a copy
    CHECK(s.json() == before);
    CHECK(r.json() != before);
}

TEST_CASE("copying a recorder into a snapshot that held it allocates nothing", "[net][trace][writer]") {
    trace_recorder r{fake(256)};
    r.intern("physics");
    fill(r, 100);
    trace_snapshot s;
    r.snapshot_into(s); // the first copy sizes it
    fill(r, 300);
    test::allocation_counter counter;
    r.snapshot_into(s);
    CHECK(counter.count() == 0);
    CHECK(s.json() == r.json());
}

TEST_CASE("trace_writer writes what trace_recorder::json() gives, off the calling thread", "[net][trace][writer]") {
    test::temp_dir dir;
    trace_recorder r{fake(64)};
    fill(r, 30);
    const std::string expected = r.json();
    trace_writer w;
    REQUIRE(w.submit(r, (dir / "a.json").string()));
    fill(r, 5); // recording goes on; the file holds the records as they were at the submit
    w.flush();
    CHECK(w.written() == 1);
    CHECK(w.failed() == 0);
    CHECK(w.pending() == 0);
    CHECK(read(dir / "a.json") == expected);
    const auto c = test::check_trace_file(dir / "a.json");
    REQUIRE(c.ok());
    CHECK(c.summary.slices.at("tick") == 30);
}

TEST_CASE("trace_writer drops a submit to a full queue and counts it", "[net][trace][writer]") {
    test::temp_dir dir;
    trace_recorder r{fake(16)};
    fill(r, 4);
    trace_writer w{{.queue = 2, .paused = true}};
    CHECK(w.submit(r, (dir / "1.json").string()));
    CHECK(w.submit(r, (dir / "2.json").string()));
    CHECK_FALSE(w.submit(r, (dir / "3.json").string()));
    CHECK(w.dropped() == 1);
    CHECK(w.pending() == 2);
    CHECK_FALSE(std::filesystem::exists(dir / "1.json")); // paused: nothing written yet
    w.flush();
    CHECK(w.written() == 2);
    CHECK(std::filesystem::exists(dir / "1.json"));
    CHECK(std::filesystem::exists(dir / "2.json"));
    CHECK_FALSE(std::filesystem::exists(dir / "3.json"));
    CHECK(w.submit(r, (dir / "3.json").string())); // room again
    w.flush();
    CHECK(w.written() == 3);
    CHECK(w.dropped() == 1);
}

TEST_CASE("trace_writer reports a trace it could not write", "[net][trace][writer]") {
    test::temp_dir dir;
    trace_recorder r{fake(16)};
    fill(r, 4);
    trace_writer w;
    const auto bad = dir / "no-such-dir" / "t.json";
    REQUIRE(w.submit(r, bad.string()));
    REQUIRE(w.submit(r, (dir / "ok.json").string()));
    w.flush();
    CHECK(w.failed() == 1);
    CHECK(w.written() == 1);
    const auto f = w.take_failures();
    REQUIRE(f.size() == 1);
    CHECK(f[0].path == bad);
    CHECK_FALSE(f[0].why.empty());
    CHECK(w.take_failures().empty()); // taken once
    CHECK(w.failed() == 1);           // still counted
}

TEST_CASE("trace_writer keeps a bounded list of failures and counts them all", "[net][trace][writer]") {
    test::temp_dir dir;
    trace_recorder r{fake(4)};
    trace_writer w{{.queue = 4}};
    const std::size_t n = trace_writer::max_failures_kept + 5;
    for (std::size_t i = 0; i < n; ++i) {
        REQUIRE(w.submit(r, (dir / "missing" / (std::to_string(i) + ".json")).string()));
        w.flush();
    }
    CHECK(w.failed() == n);
    CHECK(w.take_failures().size() == trace_writer::max_failures_kept);
}

TEST_CASE("trace_writer's destructor writes every trace still queued", "[net][trace][writer]") {
    test::temp_dir dir;
    trace_recorder r{fake(16)};
    fill(r, 4);
    {
        trace_writer w{{.queue = 3, .paused = true}};
        for (int i = 0; i < 3; ++i) REQUIRE(w.submit(r, (dir / (std::to_string(i) + ".json")).string()));
    } // paused, three queued: the destructor writes them, then joins
    for (int i = 0; i < 3; ++i) {
        const auto c = test::check_trace_file(dir / (std::to_string(i) + ".json"));
        CHECK(c.ok());
    }
}

TEST_CASE("trace_writer::reserve sizes its slots so a submit of that recorder allocates nothing",
          "[net][trace][writer]") {
    test::temp_dir dir;
    trace_recorder r{fake(128)};
    fill(r, 50);
    trace_writer w{{.queue = 2, .paused = true}}; // paused: its thread allocates nothing meanwhile
    w.reserve(r);
    const std::string path = (dir / "flight.json").string();
    test::allocation_counter counter;
    CHECK(w.submit(r, path));
    CHECK(counter.count() == 0);
    w.flush();
    CHECK(w.written() == 1);
}
