// The host's metrics as Prometheus text (docs/hosting.md, "Metrics").
#include <catch2/catch.hpp>

#include <retcon/host/host_metrics.hpp>
#include <retcon/net/protocol.hpp>

#include <string>

using namespace retcon;

TEST_CASE("metrics: refusals are counted by reason, one line for every reason and the unanswered ones",
          "[host][metrics]") {
    host_metrics m;
    m.refusals = 9;
    m.refusals_by_reason.by_reason[static_cast<std::size_t>(wire::reject_reason::join_token)] = 4;
    m.refusals_by_reason.by_reason[static_cast<std::size_t>(wire::reject_reason::match)] = 2;
    m.refusals_by_reason.malformed = 2;
    m.refusals_by_reason.hello_budget = 1;
    const std::string page = to_prometheus(m);
    INFO(page);
    CHECK(page.find("# TYPE retcon_host_refusals_by_reason_total counter\n") != std::string::npos);
    CHECK(page.find("\nretcon_host_refusals_by_reason_total{reason=\"join_token\"} 4\n") != std::string::npos);
    CHECK(page.find("\nretcon_host_refusals_by_reason_total{reason=\"match\"} 2\n") != std::string::npos);
    CHECK(page.find("\nretcon_host_refusals_by_reason_total{reason=\"malformed\"} 2\n") != std::string::npos);
    CHECK(page.find("\nretcon_host_refusals_by_reason_total{reason=\"hello_budget\"} 1\n") != std::string::npos);
    for (const auto &row : wire::reject_reasons) {
        INFO(row.name);
        CHECK(page.find("\nretcon_host_refusals_by_reason_total{reason=\"" + std::string{row.name} + "\"} ") !=
              std::string::npos);
    }
    CHECK(page.find("\nretcon_host_refusals_by_reason_total{reason=\"draining\"} 0\n") != std::string::npos);
}

TEST_CASE("metrics: replays that could not be written are counted", "[host][metrics]") {
    host_metrics m;
    CHECK(to_prometheus(m).find("\nretcon_host_recordings_failed_total 0\n") != std::string::npos);
    m.recordings_failed = 3;
    const std::string page = to_prometheus(m);
    INFO(page);
    CHECK(page.find("# TYPE retcon_host_recordings_failed_total counter\n") != std::string::npos);
    CHECK(page.find("\nretcon_host_recordings_failed_total 3\n") != std::string::npos);
}
