// The drain: the first request stops admitting, a second forces the ending, the grace is
// counted from the first (docs/hosting.md, "Drain"). Times are injected.
#include <catch2/catch.hpp>

#include "drain.hpp"

using retcon::drain_control;

TEST_CASE("drain: the first request drains, the second forces, the grace runs from the first", "[host][drain]") {
    drain_control d;
    CHECK_FALSE(d.take_requests(1'000).started);
    CHECK_FALSE(d.draining());
    d.request();
    CHECK(d.requests() == 1);
    CHECK_FALSE(d.draining()); // the ticking thread has not taken it in yet
    const auto first = d.take_requests(2'000'000);
    CHECK(first.started);
    CHECK_FALSE(first.forced);
    CHECK(d.draining());
    CHECK_FALSE(d.grace_over(2'999'999, 1000));
    CHECK(d.grace_over(3'000'000, 1000));
    CHECK_FALSE(d.take_requests(2'500'000).started); // nothing new
    d.request();
    const auto second = d.take_requests(4'000'000);
    CHECK_FALSE(second.started);
    CHECK(second.forced);
    CHECK(d.forced());
    CHECK(d.grace_over(3'000'000, 1000)); // still counted from the first request
    d.request();
    CHECK_FALSE(d.take_requests(5'000'000).forced); // forced once
}

TEST_CASE("drain: two requests taken in at once start and force together", "[host][drain]") {
    drain_control d;
    d.request();
    d.request();
    const auto c = d.take_requests(7);
    CHECK(c.started);
    CHECK(c.forced);
}
