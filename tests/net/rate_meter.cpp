// rate_meter (net/src/rate_meter.hpp): the per-second rates of session_stats (docs/net.md, "Stats").
#include <catch2/catch.hpp>

#include <retcon/net/stats.hpp>

#include "rate_meter.hpp"

using namespace retcon;

TEST_CASE("rate_meter: rates over the last second or more, from running totals, updated once a second") {
    internal::rate_meter m;
    session_stats s;
    m.update(5000, s, 100, 50); // the first call only starts the clock
    CHECK(s.bytes_in_per_s == 0);

    s.rollbacks = 4;
    s.resimulated = 40;
    m.update(5999, s, 1100, 550); // not a second yet: nothing moves
    CHECK(s.bytes_in_per_s == 0);
    CHECK(s.rollbacks_per_s == 0);

    m.update(7000, s, 4100, 2050); // two seconds since the start
    CHECK(s.bytes_in_per_s == Approx(2000.0));
    CHECK(s.bytes_out_per_s == Approx(1000.0));
    CHECK(s.rollbacks_per_s == Approx(2.0));
    CHECK(s.resimulated_per_s == Approx(20.0));

    s.rollbacks = 5;
    m.update(8000, s, 4100, 2050); // the next second counts only what happened in it
    CHECK(s.bytes_in_per_s == 0);
    CHECK(s.rollbacks_per_s == Approx(1.0));
    CHECK(s.resimulated_per_s == 0);
}
