// The strict trace checker (tests/support, common/trace_checker.hpp) rejects each rule broken
// once, so a trace that passes it says something.
#include <catch2/catch.hpp>

#include <common/trace_checker.hpp>

#include <string>

using retcon::test::check_trace;

namespace {
std::string wrap(const std::string &events) { return R"({"traceEvents":[)" + events + "]}"; }
const std::string slice = R"({"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1})";

/// The first problem of @p json, or "" when it passes.
std::string first_problem(const std::string &json) {
    const auto c = check_trace(json);
    return c.ok() ? std::string{} : c.problems.front();
}
} // namespace

TEST_CASE("the trace checker passes a minimal valid trace of every phase", "[net][trace]") {
    const auto c =
        check_trace(wrap(slice + "," + R"({"name":"b","ph":"X","ts":1.5,"dur":1.5,"pid":1,"tid":1,"args":{"n":4}},)" +
                         R"({"name":"c","ph":"C","ts":1,"pid":1,"tid":1,"args":{"c":2.5}},)" +
                         R"({"name":"d","ph":"i","ts":1,"pid":1,"tid":1,"s":"t","args":{"text":"x"}},)" +
                         R"({"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"tick"}},)" +
                         R"({"name":"thread_sort_index","ph":"M","pid":1,"tid":1,"args":{"sort_index":1}})"));
    INFO((c.ok() ? "" : c.problems.front()));
    REQUIRE(c.ok());
    CHECK(c.summary.slices.at("a") == 1);
    CHECK(c.summary.nested_in.at("b<a") == 1);
    CHECK(c.summary.arg_sums.at("b.n") == 4);
    CHECK(c.summary.counters.at("c") == 1);
    CHECK(c.summary.texts.at("d") == std::vector<std::string>{"x"});
}

TEST_CASE("the trace checker rejects JSON that is not strict", "[net][trace]") {
    CHECK_THAT(first_problem(R"({"traceEvents":[{"name":"c","ph":"C","ts":1,"pid":1,"tid":1,"args":{"c":NaN}}]})"),
               Catch::StartsWith("not strict JSON"));
    CHECK_THAT(first_problem(R"({"traceEvents":[{"name":"c","ph":"C","ts":1,"pid":1,"tid":1,"args":{"c":Infinity}}]})"),
               Catch::StartsWith("not strict JSON"));
    CHECK_THAT(first_problem(wrap(slice + ",")), Catch::StartsWith("not strict JSON"));
    CHECK_THAT(first_problem("/* c */" + wrap(slice)), Catch::StartsWith("not strict JSON"));
    CHECK_THAT(first_problem(wrap(slice) + "x"), Catch::StartsWith("not strict JSON"));
}

TEST_CASE("the trace checker rejects a wrong top level", "[net][trace]") {
    CHECK(first_problem("[" + slice + "]") == "the top level is not an object");
    CHECK(first_problem(R"({"events":[]})") == "no traceEvents array");
    CHECK(first_problem(R"({"traceEvents":{}})") == "no traceEvents array");
    CHECK(first_problem(R"({"traceEvents":[],"displayTimeUnit":"s"})") ==
          "displayTimeUnit is neither \"ms\" nor \"ns\"");
}

TEST_CASE("the trace checker rejects events without their required fields", "[net][trace]") {
    CHECK(first_problem(wrap("1")) == "event 0: not an object");
    CHECK(first_problem(wrap(R"({"name":"a","ts":1,"pid":1,"tid":1})")) == "event 0: no string ph");
    CHECK(first_problem(wrap(R"({"ph":"X","ts":1,"dur":1,"pid":1,"tid":1})")) == "event 0: no string name");
    CHECK(first_problem(wrap(R"({"name":"a","ph":"X","ts":1,"dur":1,"tid":1})")) ==
          "event 0 (a): pid and tid must be integers");
    CHECK(first_problem(wrap(R"({"name":"a","ph":"X","ts":1,"dur":1,"pid":1,"tid":"main"})")) ==
          "event 0 (a): pid and tid must be integers");
    CHECK(first_problem(wrap(R"({"name":"a","ph":"X","dur":1,"pid":1,"tid":1})")) ==
          "event 0 (a): no finite numeric ts");
    CHECK(first_problem(wrap(R"({"name":"a","ph":"X","ts":"1","dur":1,"pid":1,"tid":1})")) ==
          "event 0 (a): no finite numeric ts");
    CHECK(first_problem(wrap(R"({"name":"a","ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"args":[1]})")) ==
          "event 0 (a): args is not an object");
    CHECK(first_problem(wrap(R"({"name":"a","ph":"Q","ts":1,"pid":1,"tid":1})")) ==
          "event 0 (a): ph \"Q\" is not one this checker knows (X, C, i, I, M)");
}

TEST_CASE("the trace checker rejects each phase's broken rule", "[net][trace]") {
    CHECK(first_problem(wrap(R"({"name":"a","ph":"X","ts":1,"pid":1,"tid":1})")) ==
          "event 0 (a): X without a finite dur >= 0");
    CHECK(first_problem(wrap(R"({"name":"a","ph":"X","ts":1,"dur":-1,"pid":1,"tid":1})")) ==
          "event 0 (a): X without a finite dur >= 0");
    CHECK(first_problem(wrap(R"({"name":"c","ph":"C","ts":1,"pid":1,"tid":1})")) == "event 0 (c): C without args");
    CHECK(first_problem(wrap(R"({"name":"c","ph":"C","ts":1,"pid":1,"tid":1,"args":{}})")) ==
          "event 0 (c): C without args");
    CHECK(first_problem(wrap(R"({"name":"c","ph":"C","ts":1,"pid":1,"tid":1,"args":{"c":"3"}})")) ==
          "event 0 (c): a C value is not a number");
    CHECK(first_problem(wrap(R"({"name":"d","ph":"i","ts":1,"pid":1,"tid":1})")) ==
          "event 0 (d): an instant's s must be g, p or t");
    CHECK(first_problem(wrap(R"({"name":"d","ph":"i","ts":1,"pid":1,"tid":1,"s":"x"})")) ==
          "event 0 (d): an instant's s must be g, p or t");
    CHECK(first_problem(wrap(R"({"name":"thread_colour","ph":"M","pid":1,"tid":1,"args":{"name":"x"}})")) ==
          "event 0: unknown metadata thread_colour");
    CHECK(first_problem(wrap(R"({"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{}})")) ==
          "event 0 (thread_name): no args.name");
    CHECK(first_problem(wrap(R"({"name":"thread_sort_index","ph":"M","pid":1,"tid":1,"args":{"sort_index":"1"}})")) ==
          "event 0 (thread_sort_index): args.sort_index has the wrong type");
}

TEST_CASE("the trace checker rejects slices that overlap without nesting on one track", "[net][trace]") {
    const std::string overlapping = R"({"name":"b","ph":"X","ts":2,"dur":2,"pid":1,"tid":1})";
    CHECK(first_problem(wrap(slice + "," + overlapping)) ==
          "event 1 (b) on pid 1 tid 1 overlaps event 0 (a) without nesting in it");
    // The same slices on another thread or process, or touching end to start, are fine.
    CHECK(check_trace(wrap(slice + "," + R"({"name":"b","ph":"X","ts":2,"dur":2,"pid":1,"tid":2})")).ok());
    CHECK(check_trace(wrap(slice + "," + R"({"name":"b","ph":"X","ts":2,"dur":2,"pid":2,"tid":1})")).ok());
    CHECK(check_trace(wrap(slice + "," + R"({"name":"b","ph":"X","ts":3,"dur":2,"pid":1,"tid":1})")).ok());
    // Equal spans nest (ties are allowed), in either order.
    CHECK(check_trace(wrap(slice + "," + R"({"name":"b","ph":"X","ts":1,"dur":2,"pid":1,"tid":1})")).ok());
}
