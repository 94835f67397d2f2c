// The metrics publisher: the ticking thread's counters, published once a second as one copy;
// a tick's time split into its parts (docs/hosting.md, "Metrics"). Times are injected.
#include <catch2/catch.hpp>

#include "metrics_publisher.hpp"

#include <memory>
#include <vector>

using namespace retcon;

namespace {
class no_transport final : public transport {
public:
    void send(peer_id, wire::channel, std::span<const std::byte>) override {}
    void disconnect(peer_id) override {}
    void poll(std::uint64_t, transport_handler &) override {}
};
} // namespace

TEST_CASE("metrics publisher: counters are published once a second with totals over ended and running matches",
          "[host][metrics]") {
    metrics_publisher p{2};
    transport_mux mux{std::make_unique<no_transport>()};
    std::vector<std::unique_ptr<hosted_match>> matches(2);
    matches[1] = std::make_unique<hosted_match>();
    matches[1]->route = mux.add_route();
    matches[1]->m.match_id = "m1";
    matches[1]->m.ticks = 40;
    p.start(10'000'000);
    CHECK_FALSE(p.due(10'999'999));
    CHECK(p.due(11'000'000));
    p.live().desyncs_verified = 2; // an ended match's
    p.live().matches_opened = 2;
    CHECK(p.published().matches_opened == 0); // nothing published yet
    refusal_counts why;
    why.by_reason[static_cast<std::size_t>(wire::reject_reason::draining)] = 2;
    why.malformed = 1;
    p.publish(11'500'000, {true, 5, 3, why, transport_counters{40, 6, 3}}, matches, mux);
    const auto m = p.published();
    CHECK(m.uptime_ms == 1500);
    CHECK(m.draining);
    CHECK(m.admissions == 5);
    CHECK(m.refusals == 3);
    CHECK(m.refusals_by_reason.by_reason[static_cast<std::size_t>(wire::reject_reason::draining)] == 2);
    CHECK(m.refusals_by_reason.malformed == 1);
    CHECK(m.connects_challenged == 40);
    CHECK(m.pending_dropped == 6);
    CHECK(m.oversized_packets == 3);
    CHECK(m.matches == 1);
    CHECK(m.matches_opened == 2);
    CHECK(m.desyncs_verified == 2);
    REQUIRE(m.per_match.size() == 1);
    CHECK(m.per_match[0].match_id == "m1");
    CHECK(m.per_match[0].ticks == 40);
    CHECK_FALSE(p.due(12'000'000));
    CHECK(p.due(12'500'000));
}

TEST_CASE("metrics publisher: a tick's time splits at the step's end and the confirmed frame", "[host][metrics]") {
    tick_costs c;
    metrics_publisher::account_tick(c, 150, 180, 100, 200);
    CHECK(c.hash_record_ns == 30);
    CHECK(c.broadcast_ns == 20);
    CHECK(c.frames == 1);
    // No step ran (the match was ending): all of it is broadcasting.
    metrics_publisher::account_tick(c, 0, 0, 300, 340);
    CHECK(c.hash_record_ns == 30);
    CHECK(c.broadcast_ns == 60);
    CHECK(c.frames == 2);
}
