// refusal_limiter (ecs/internal/retcon/internal/refusal_limiter.hpp; the server session and the match host share it): connections refused before their handshake,
// reported at most once a second with a count of the rest (docs/net.md, "Security model").
#include <catch2/catch.hpp>

#include <string>

#include <retcon/internal/refusal_limiter.hpp>

using namespace retcon;

TEST_CASE("refusal_limiter: one report a second, the next one counting the refusals in between", "[net][parts]") {
    internal::refusal_limiter r;
    auto text = r.refused(5000, "10.0.0.1:4000", "no hello within 2000 ms of connecting");
    REQUIRE(text);
    CHECK(text->text == "10.0.0.1:4000: no hello within 2000 ms of connecting");
    CHECK(text->count == 1u);
    CHECK_FALSE(r.refused(5001, "10.0.0.2:4000", "connection closed before its hello"));
    CHECK_FALSE(r.refused(5999, "", "connection closed before its hello"));
    CHECK(r.suppressed() == 2u);
    CHECK_FALSE(r.flush(5999)); // not a second yet
    text = r.refused(6000, "", "connection closed before its hello");
    REQUIRE(text);
    CHECK(text->text == "connection closed before its hello (and 2 more refused since the last report)");
    CHECK(text->count == 3u); // this one and the two counted
    CHECK(r.suppressed() == 0u);
    CHECK_FALSE(r.flush(9000)); // nothing counted: nothing to say
}

TEST_CASE("refusal_limiter: a burst followed by quiet is reported a second after the last report", "[net][parts]") {
    internal::refusal_limiter r;
    REQUIRE(r.refused(100, "", "a"));
    for (int i = 0; i < 5; ++i) CHECK_FALSE(r.refused(200, "", "b"));
    CHECK_FALSE(r.flush(1099));
    const auto text = r.flush(1100);
    REQUIRE(text);
    CHECK(text->text == "5 more connections refused since the last report");
    CHECK(text->count == 5u);
    CHECK_FALSE(r.flush(5000));
    // The flush was a report: the next refusal within a second of it is counted.
    CHECK_FALSE(r.refused(1500, "", "c"));
    CHECK(r.refused(2100, "", "d"));
}

TEST_CASE("refusal_limiter: the address is escaped in the report's text", "[net][parts]") {
    internal::refusal_limiter r;
    const auto text = r.refused(5000, "10.0.0.1:4000\nforged", "connection closed before its hello");
    REQUIRE(text);
    CHECK(text->text == "10.0.0.1:4000\\x0aforged: connection closed before its hello");
}
