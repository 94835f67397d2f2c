#include <catch2/catch.hpp>

#include <retcon/net/events.hpp>
#include <retcon/net/trace.hpp>

#include <common/trace_checker.hpp>

#include <string>

using namespace retcon;

namespace {
std::uint64_t fake_now = 0;
trace_options fake(std::uint32_t records) {
    return {.records = records, .clock = {[](void *) { return fake_now; }, nullptr}, .process_name = "t", .pid = 7};
}
} // namespace

TEST_CASE("trace_recorder keeps the newest records and counts the ones it overwrote", "[net][trace]") {
    trace_recorder r{fake(4)};
    CHECK(r.capacity() == 4);
    CHECK(r.size() == 0);
    for (std::int64_t i = 0; i < 6; ++i)
        r.complete(trace_id(trace_name::tick), static_cast<std::uint64_t>(i) * 1000u,
                   static_cast<std::uint64_t>(i) * 1000u + 500u, trace_track::tick, i);
    CHECK(r.size() == 4);
    CHECK(r.overwritten() == 2);
    const auto c = test::check_trace(r.json());
    REQUIRE(c.ok());
    CHECK(c.summary.slices.at("tick") == 4);
    CHECK(c.summary.arg_sums.at("tick.frame") == 2 + 3 + 4 + 5); // frames 0 and 1 are gone
}

TEST_CASE("trace_recorder interns a name once and knows the built-in and event names", "[net][trace]") {
    trace_recorder r{fake(8)};
    const trace_name_id a = r.intern("physics");
    CHECK(r.intern("physics") == a);
    CHECK(r.intern("physics", "bodies") != a); // other argument names: another entry
    CHECK(r.name(a) == "physics");
    CHECK(r.name(trace_id(trace_name::rollback)) == "rollback");
    CHECK(r.name(trace_id(trace_name::event) + static_cast<trace_name_id>(session_event_kind::desync_detected)) ==
          "desync_detected");
    CHECK(r.intern("rollback", "depth", "first_wrong") == trace_id(trace_name::rollback));
    CHECK(r.name(60000) == "?");
}

TEST_CASE("trace_recorder drops non-finite counters and cuts long texts", "[net][trace]") {
    trace_recorder r{fake(8)};
    r.counter(trace_id(trace_name::rtt_ms), 1.0 / 0.0);
    r.counter(trace_id(trace_name::rtt_ms), 0.0 / 0.0);
    CHECK(r.size() == 0);
    r.counter(trace_id(trace_name::rtt_ms), 12.5);
    r.instant(trace_id(trace_name::stall), std::string(2000, 'x'));
    const auto c = test::check_trace(r.json());
    REQUIRE(c.ok());
    CHECK(c.summary.counters.at("rtt_ms") == 1);
    REQUIRE(c.summary.texts.at("stall").size() == 1);
    CHECK(c.summary.texts.at("stall")[0] == std::string(trace_recorder::max_text, 'x'));
}

TEST_CASE("trace_recorder's text ring says when an old instant's text was overwritten", "[net][trace]") {
    trace_recorder r{fake(1024)};
    r.instant(trace_id(trace_name::stall), "first");
    const std::string filler(trace_recorder::max_text, 'f');
    for (std::size_t i = 0; i < trace_recorder::text_capacity / trace_recorder::max_text; ++i)
        r.instant(trace_id(trace_name::stall), filler);
    r.instant(trace_id(trace_name::stall), "last");
    const auto c = test::check_trace(r.json());
    REQUIRE(c.ok());
    const auto &texts = c.summary.texts.at("stall");
    CHECK(texts.front() == "(overwritten)");
    CHECK(texts.back() == "last");
    CHECK(texts[texts.size() - 2] == filler); // wrapped around the ring's end, still whole
}

TEST_CASE("trace_scope records a game slice, and nothing with no recorder", "[net][trace]") {
    trace_recorder r{fake(8)};
    const trace_name_id physics = r.intern("physics");
    fake_now = 100;
    {
        const trace_scope s{&r, physics};
        fake_now = 350;
    }
    { const trace_scope none{nullptr, physics}; }
    CHECK(r.size() == 1);
    const std::string j = r.json();
    CHECK(j.find(R"("name":"physics","cat":"retcon","ph":"X","ts":0.100,"pid":7,"tid":3,"dur":0.250)") !=
          std::string::npos);
}
