// serve() and the seams of the match host an orchestrator uses: the heartbeat, the match limit,
// the hooks for matches that open and end (docs/hosting.md, "Orchestrators").
#include <catch2/catch.hpp>

#include <retcon/host.hpp>

#include "host_fixture.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <mutex>
#include <thread>

using namespace retcon;

namespace {

/// Records what serve() asks of it, and what the host told its hooks, in order.
struct recording_orchestrator final : orchestrator {
    std::mutex m;
    std::vector<std::string> calls;
    std::atomic<int> terminated{0};
    void note(std::string s) {
        std::lock_guard lock{m};
        calls.push_back(std::move(s));
    }
    [[nodiscard]] std::string_view name() const noexcept override { return "recording"; }
    void start(match_host &host) override {
        note("start");
        host.on_match_opened([this](const std::string &id, const match_params &) { note("opened " + id); });
        host.on_result([this](const match_result &r) { note("ended " + r.match_id); });
    }
    void terminate() noexcept override { ++terminated; }
    int finish(int status) override {
        note("finish " + std::to_string(status));
        return status == 0 ? 0 : 7;
    }
};

host_options quick_open_host() {
    host_options o;
    o.port = 0;
    o.max_matches = 1;
    o.open_matches = 1;
    o.open_params.tick_hz = 100;
    o.match_duration_ms = 150; // each open match ends by itself
    o.empty_timeout_ms = 60000;
    return o;
}

} // namespace

TEST_CASE(
    "orchestrator: serve runs start, the host until its match limit, then finish, and every hook hears each match",
    "[host][orchestrator]") {
    auto o = quick_open_host();
    o.match_limit = 2; // open mode would replace matches for ever; the limit ends the process
    auto host = match_host::create(o, test::counter_game);
    REQUIRE(host);
    std::vector<std::string> log;
    std::vector<std::string> app_results; // the game's own hook, beside the orchestrator's
    std::mutex m;
    (*host)->on_log([&](std::string_view line) {
        std::lock_guard lock{m};
        log.emplace_back(line);
    });
    (*host)->on_result([&](const match_result &r) {
        std::lock_guard lock{m};
        app_results.push_back(r.match_id);
    });
    recording_orchestrator orch;
    serve_options so;
    so.handle_signals = false;
    CHECK(serve(**host, orch, so) == 0);
    CHECK(orch.calls == std::vector<std::string>{"start", "opened open-1", "ended open-1", "opened open-2",
                                                 "ended open-2", "finish 0"});
    CHECK(app_results == std::vector<std::string>{"open-1", "open-2"});
    CHECK((*host)->metrics().matches_opened == 2);
    bool said = false;
    for (const auto &l : log) said = said || l.find("match limit reached") != std::string::npos;
    CHECK(said);
}

TEST_CASE("orchestrator: the heartbeat moves while the host runs and stops when its thread stops",
          "[host][orchestrator]") {
    auto o = quick_open_host();
    o.match_duration_ms = 0;
    auto host = match_host::create(o, test::counter_game);
    REQUIRE(host);
    (*host)->on_log([](std::string_view) {});
    const auto before = (*host)->heartbeat();
    std::thread running{[&] { (*host)->run(); }};
    std::uint64_t seen = before;
    for (int i = 0; i < 500 && seen < before + 5; ++i) { // the thread wakes at least ten times a second
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        seen = (*host)->heartbeat();
    }
    CHECK(seen >= before + 5);
    (*host)->request_drain();
    (*host)->request_drain();
    running.join();
    const auto after = (*host)->heartbeat();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK((*host)->heartbeat() == after);
}

TEST_CASE("orchestrator: SIGTERM under serve drains the host and tells the orchestrator", "[host][orchestrator]") {
    auto o = quick_open_host();
    o.match_duration_ms = 0; // the match would run for ever: only the drain ends it
    o.drain_grace_ms = 0;
    auto host = match_host::create(o, test::counter_game);
    REQUIRE(host);
    (*host)->on_log([](std::string_view) {});
    recording_orchestrator orch;
    std::atomic<bool> started{false};
    (*host)->on_match_opened([&](const std::string &, const match_params &) { started = true; });
    int status = -1;
    struct sigaction before {};
    sigaction(SIGTERM, nullptr, &before); // Catch's own handler
    std::thread serving{[&] { status = serve(**host, orch); }};
    for (int i = 0; i < 500 && !started; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(started);
    std::raise(SIGTERM); // on this thread: the handler is process-wide
    serving.join();
    CHECK(status == 0);
    CHECK(orch.terminated.load() >= 1);
    REQUIRE(orch.calls.size() >= 3);
    CHECK(orch.calls.back() == "finish 0");
    // serve put the previous handler back.
    struct sigaction now {};
    sigaction(SIGTERM, nullptr, &now);
    CHECK(now.sa_handler == before.sa_handler);
}
