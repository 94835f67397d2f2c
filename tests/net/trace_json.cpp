#include <catch2/catch.hpp>

#include <retcon/net/events.hpp>
#include <retcon/net/trace.hpp>

#include <common/temp_dir.hpp>
#include <common/trace_checker.hpp>

#include <string>

using namespace retcon;

namespace {
std::uint64_t fake_now = 0;
trace_recorder fake(std::uint32_t records, std::string process = "retcon test") {
    return trace_recorder{
        {.records = records, .clock = {[](void *) { return fake_now; }, nullptr}, .process_name = process, .pid = 42}};
}
} // namespace

TEST_CASE("the trace JSON is exactly the Trace Event Format object form", "[net][trace]") {
    trace_recorder r = fake(16);
    r.complete(trace_id(trace_name::step), 1'000'250, 1'002'000, trace_track::tick, 5);
    r.complete(trace_id(trace_name::rollback), 1'000'000, 1'003'001, trace_track::tick, 3, 2);
    fake_now = 1'004'000;
    r.counter(trace_id(trace_name::rtt_ms), 41.5);
    r.instant(trace_id(trace_name::event) + static_cast<trace_name_id>(session_event_kind::desync_detected), "frame 2");
    const std::string expected = R"({"traceEvents":[
{"name":"process_name","ph":"M","pid":42,"tid":0,"args":{"name":"retcon test"}},
{"name":"thread_name","ph":"M","pid":42,"tid":1,"args":{"name":"tick"}},
{"name":"thread_sort_index","ph":"M","pid":42,"tid":1,"args":{"sort_index":1}},
{"name":"thread_name","ph":"M","pid":42,"tid":2,"args":{"name":"network"}},
{"name":"thread_sort_index","ph":"M","pid":42,"tid":2,"args":{"sort_index":2}},
{"name":"thread_name","ph":"M","pid":42,"tid":3,"args":{"name":"game"}},
{"name":"thread_sort_index","ph":"M","pid":42,"tid":3,"args":{"sort_index":3}},
{"name":"step","cat":"retcon","ph":"X","ts":1000.250,"pid":42,"tid":1,"dur":1.750,"args":{"frame":5}},
{"name":"rollback","cat":"retcon","ph":"X","ts":1000.000,"pid":42,"tid":1,"dur":3.001,"args":{"depth":3,"first_wrong":2}},
{"name":"rtt_ms","cat":"retcon","ph":"C","ts":1004.000,"pid":42,"tid":1,"args":{"rtt_ms":41.5}},
{"name":"desync_detected","cat":"retcon","ph":"i","ts":1004.000,"pid":42,"tid":1,"s":"p","args":{"text":"frame 2"}}
],"displayTimeUnit":"ms","otherData":{"retcon":"0.1.0","clock":"injected","records":4,"overwritten":0}}
)";
    CHECK(r.json() == expected);
    const auto c = test::check_trace(r.json());
    CHECK(c.ok());
    CHECK(c.summary.nested_in.at("step<rollback") == 1);
}

TEST_CASE("the trace JSON escapes names and texts and replaces invalid UTF-8", "[net][trace]") {
    trace_recorder r = fake(16, "quote \" back \\ tab \t");
    const trace_name_id odd = r.intern("sys\n\"x\"", "a\\b");
    r.complete(odd, 10, 20, trace_track::game, 1);
    // A peer's text: controls, a lone continuation byte, a truncated sequence, an overlong
    // encoding, a surrogate, and valid two-, three- and four-byte sequences.
    r.instant(trace_id(trace_name::stall), std::string{"\x01\x1f\x7f|\x80|\xe2\x82|\xc0\xaf|\xed\xa0\x80|é€😀"});
    const std::string j = r.json();
    CHECK(j.find(R"("name":"quote \" back \\ tab \u0009")") != std::string::npos);
    CHECK(j.find(R"("name":"sys\u000a\"x\"")") != std::string::npos);
    CHECK(j.find(R"("a\\b":1)") != std::string::npos);
    const auto c = test::check_trace(j);
    REQUIRE(c.ok());
    CHECK(c.summary.texts.at("stall")[0] ==
          "\x01\x1f\x7f|\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|"
          "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|é€😀");
}

TEST_CASE("an empty trace is valid and write_json writes the file or says why not", "[net][trace]") {
    trace_recorder r = fake(4);
    CHECK(test::check_trace(r.json()).ok());
    test::temp_dir dir;
    const auto path = dir.path() / "t.json";
    REQUIRE(r.write_json(path).ok());
    const auto bytes = test::read_bytes(path);
    CHECK(std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size()) == r.json());
    const auto bad = r.write_json(dir.path() / "missing" / "t.json");
    CHECK_FALSE(bad.ok());
    CHECK(bad.code() == errc::io);
}
