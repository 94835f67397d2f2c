// The Agones SDK sidecar stand-in (host/tools/agones_standin, docs/agones-standin.md), driven
// over HTTP as a game server would drive the real sidecar.
#include <catch2/catch.hpp>

#include <agones_standin.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace retcon;
using json = nlohmann::json;

namespace {

constexpr std::uint64_t t0 = 1000; // the manual clock's start

/// A clock the test moves by hand.
struct manual_clock {
    std::shared_ptr<std::atomic<std::uint64_t>> now = std::make_shared<std::atomic<std::uint64_t>>(t0);
    [[nodiscard]] std::function<std::uint64_t()> fn() const {
        return [n = now] { return n->load(); };
    }
    void set(std::uint64_t t) const { now->store(t); }
};

agones_standin_options quiet() {
    agones_standin_options o;
    o.log = [](std::string_view) {};
    return o;
}

/// Options with the manual clock and no timer thread: timers run only at tick().
agones_standin_options manual(const manual_clock &clock) {
    auto o = quiet();
    o.clock_ms = clock.fn();
    o.timer_thread = false;
    return o;
}

std::unique_ptr<agones_standin> start(agones_standin_options o) {
    auto s = agones_standin::start(std::move(o));
    INFO(s.message());
    REQUIRE(s.ok());
    return std::move(*s);
}

httplib::Client client(const agones_standin &s) {
    httplib::Client c{"127.0.0.1", s.port()};
    c.set_connection_timeout(5);
    c.set_read_timeout(10);
    return c;
}

/// The answer to one request: status and body (status -1 when the request failed).
struct answer {
    int status = -1;
    std::string body;
    [[nodiscard]] json j() const { return json::parse(body); }
};

answer got(const httplib::Result &r) {
    if (!r) return {};
    return {r->status, r->body};
}

answer post(const agones_standin &s, const std::string &path, const std::string &body = "{}") {
    auto c = client(s);
    return got(c.Post(path.c_str(), body, "application/json"));
}
answer put(const agones_standin &s, const std::string &path, const std::string &body) {
    auto c = client(s);
    return got(c.Put(path.c_str(), body, "application/json"));
}
answer patch(const agones_standin &s, const std::string &path, const std::string &body) {
    auto c = client(s);
    return got(c.Patch(path.c_str(), body, "application/json"));
}
answer get(const agones_standin &s, const std::string &path) {
    auto c = client(s);
    return got(c.Get(path.c_str()));
}

/// A gateway error body: {"code":N,"message":"...","details":[]}.
void check_error(const answer &a, int status, int code, const std::string &message = {}) {
    INFO(a.body);
    CHECK(a.status == status);
    const auto j = json::parse(a.body, nullptr, false);
    REQUIRE(j.is_object());
    CHECK(j.at("code") == code);
    CHECK(j.at("details") == json::array());
    REQUIRE(j.at("message").is_string());
    if (message.empty()) CHECK(!j.at("message").get<std::string>().empty());
    else
        CHECK(j.at("message") == message);
}

/// Follows GET /watch/gameserver on a thread of its own, collecting the lines.
class watcher {
public:
    explicit watcher(std::uint16_t port) {
        thread_ = std::thread{[this, port] {
            httplib::Client c{"127.0.0.1", port};
            c.set_read_timeout(120);
            {
                std::lock_guard lock{mu_};
                if (stop_) return;
                client_ = &c;
            }
            std::string pending;
            c.Get(
                "/watch/gameserver",
                [&](const httplib::Response &r) {
                    std::lock_guard lock{mu_};
                    status_ = r.status;
                    return !stop_;
                },
                [&](const char *data, std::size_t n) {
                    pending.append(data, n);
                    for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n')) {
                        std::lock_guard lock{mu_};
                        lines_.push_back(pending.substr(0, nl));
                        pending.erase(0, nl + 1);
                        cv_.notify_all();
                    }
                    std::lock_guard lock{mu_};
                    return !stop_;
                });
            std::lock_guard lock{mu_};
            client_ = nullptr;
            ended_ = true;
            cv_.notify_all();
        }};
    }
    /// Hangs up (the stand-in sends the current GameServer at once, so a stream that is
    /// still connecting notices at its first line) and joins.
    ~watcher() {
        {
            std::lock_guard lock{mu_};
            stop_ = true;
            if (client_) client_->stop();
        }
        join();
    }
    watcher(const watcher &) = delete;
    watcher &operator=(const watcher &) = delete;

    void join() {
        if (thread_.joinable()) thread_.join();
    }
    /// Waits (bounded) until @p n lines arrived; true if they did.
    bool wait_lines(std::size_t n) {
        std::unique_lock lock{mu_};
        return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return lines_.size() >= n; });
    }
    /// Waits (bounded) until the stream ended; true if it did.
    bool wait_end() {
        std::unique_lock lock{mu_};
        return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return ended_; });
    }
    /// Waits (bounded) until a line shows @p state; true if one did.
    bool wait_state(const std::string &state) {
        std::unique_lock lock{mu_};
        return cv_.wait_for(lock, std::chrono::seconds(10), [&] {
            return std::any_of(lines_.begin(), lines_.end(), [&](const std::string &l) {
                const auto j = json::parse(l, nullptr, false);
                return !j.is_discarded() && j["result"]["status"]["state"] == state;
            });
        });
    }
    std::vector<json> gameservers() {
        std::lock_guard lock{mu_};
        std::vector<json> out;
        for (const auto &l : lines_) {
            const auto j = json::parse(l);
            out.push_back(j.at("result"));
        }
        return out;
    }
    /// The states the lines show, consecutive repeats dropped.
    std::vector<std::string> states() {
        std::vector<std::string> out;
        for (const auto &gs : gameservers()) {
            const auto s = gs["status"]["state"].get<std::string>();
            if (out.empty() || out.back() != s) out.push_back(s);
        }
        return out;
    }
    int status() {
        std::lock_guard lock{mu_};
        return status_;
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::vector<std::string> lines_;
    bool ended_ = false;
    bool stop_ = false;
    httplib::Client *client_ = nullptr;
    int status_ = 0;
    std::thread thread_;
};

/// True once a request to the port answers (bounded wait for a restart to finish).
bool answers_again(const agones_standin &s) {
    for (int i = 0; i < 1000; ++i) {
        if (get(s, "/gameserver").status == 200) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

} // namespace

TEST_CASE("agones stand-in: the conformance sequence") {
    manual_clock clock;
    auto o = manual(clock);
    o.counters = {{"rooms", 1, 10}};
    auto s = start(o);
    CHECK(s->state() == "Scheduled");

    // 1. ready, 2. watch
    auto a = post(*s, "/ready");
    CHECK(a.status == 200);
    CHECK(a.body == "{}");
    CHECK(s->state() == "Ready");
    watcher w{s->port()};
    REQUIRE(w.wait_lines(1));
    CHECK(w.status() == 200);

    // 3. health, reserve 5, allocate, gameserver
    CHECK(post(*s, "/health").status == 200);
    CHECK(s->health_pings() == 1);
    CHECK(post(*s, "/reserve", R"({"seconds":"5"})").status == 200);
    CHECK(s->state() == "Reserved");
    CHECK(post(*s, "/allocate").status == 200);
    CHECK(s->state() == "Allocated");
    a = get(*s, "/gameserver");
    REQUIRE(a.status == 200);
    const auto gs = a.j();
    // The gateway's JSON: proto field names, int64 as strings, int32 as numbers, unset emitted.
    const auto &meta = gs.at("object_meta");
    CHECK(meta.at("name") == "local");
    CHECK(meta.at("namespace") == "default");
    CHECK(meta.at("generation").is_string());
    CHECK(meta.at("creation_timestamp").is_string());
    CHECK(meta.at("deletion_timestamp") == "0");
    CHECK(meta.at("resource_version").is_string());
    CHECK(meta.at("labels").is_object());
    CHECK(std::regex_match(meta.at("uid").get<std::string>(),
                           std::regex{"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"}));
    const auto &health = gs.at("spec").at("health");
    CHECK(health.at("disabled") == false);
    CHECK(health.at("period_seconds") == 5);
    CHECK(health.at("failure_threshold") == 3);
    CHECK(health.at("initial_delay_seconds") == 5);
    const auto &st = gs.at("status");
    CHECK(st.at("state") == "Allocated");
    CHECK(st.at("address") == "127.0.0.1");
    CHECK(st.at("ports") == json::parse(R"([{"name":"default","port":7777}])"));
    CHECK(st.at("players").is_null());
    CHECK(st.at("lists") == json::object());
    CHECK(st.at("counters") == json::parse(R"({"rooms":{"count":"1","capacity":"10"}})"));
    CHECK(meta.at("annotations").contains("agones.dev/last-allocated"));

    // 4. setlabel(creationTimestamp), setannotation(UID)
    const auto ts = meta.at("creation_timestamp").get<std::string>();
    const auto uid = meta.at("uid").get<std::string>();
    CHECK(put(*s, "/metadata/label", json{{"key", "creationTimestamp"}, {"value", ts}}.dump()).status == 200);
    CHECK(put(*s, "/metadata/annotation", json{{"key", "UID"}, {"value", uid}}.dump()).status == 200);
    CHECK(s->labels().at("agones.dev/sdk-creationTimestamp") == ts);
    CHECK(s->annotations().at("agones.dev/sdk-UID") == uid);
    const auto after = get(*s, "/gameserver").j();
    CHECK(after["object_meta"]["labels"]["agones.dev/sdk-creationTimestamp"] == ts);
    CHECK(after["object_meta"]["annotations"]["agones.dev/sdk-UID"] == uid);

    // 5. counters
    a = get(*s, "/v1beta1/counters/rooms");
    CHECK(a.status == 200);
    CHECK(a.j() == json::parse(R"({"name":"rooms","count":"1","capacity":"10"})"));
    a = patch(*s, "/v1beta1/counters/rooms", R"({"countDiff":"-1","capacity":"42"})");
    CHECK(a.status == 200);
    CHECK(a.j() == json::parse(R"({"name":"rooms","count":"0","capacity":"42"})"));
    a = patch(*s, "/v1beta1/counters/rooms", R"({"count":"40","capacity":"42"})");
    CHECK(a.status == 200);
    CHECK(a.j() == json::parse(R"({"name":"rooms","count":"40","capacity":"42"})"));
    CHECK(s->counter("rooms") == std::pair<std::int64_t, std::int64_t>{40, 42});

    // 6. shutdown
    CHECK(post(*s, "/shutdown").status == 200);
    CHECK(s->state() == "Shutdown");
    REQUIRE(w.wait_state("Shutdown"));

    const auto f = s->features();
    const std::set<std::string> seen{f.begin(), f.end()};
    const std::set<std::string> expected{
        "ready", "allocate", "setlabel",   "setannotation", "gameserver",         "health",         "shutdown",
        "watch", "reserve",  "getcounter", "updatecounter", "setcapacitycounter", "setcountcounter"};
    CHECK(seen == expected);
    CHECK(w.states() == std::vector<std::string>{"Ready", "Reserved", "Allocated", "Shutdown"});
    // The watch saw the labels, the annotation and the counters change too, prefixed and typed.
    const auto last = w.gameservers().back();
    CHECK(last["object_meta"]["labels"]["agones.dev/sdk-creationTimestamp"] == ts);
    CHECK(last["status"]["counters"]["rooms"] == json::parse(R"({"count":"40","capacity":"42"})"));

    s.reset(); // ends the stream
    CHECK(w.wait_end());
}

TEST_CASE("agones stand-in: health timing with a manual clock") {
    manual_clock clock;
    auto at = [&](agones_standin &s, std::uint64_t ms) {
        clock.set(t0 + ms);
        s.tick();
    };

    SECTION("no pings: a failure at the initial delay and each period after, Unhealthy at the threshold") {
        auto s = start(manual(clock)); // 5 s initial delay, 5 s period, 3 failures
        at(*s, 4'999);
        at(*s, 5'000);  // failure 1
        at(*s, 10'000); // failure 2
        at(*s, 14'999);
        CHECK(s->state() == "Scheduled");
        at(*s, 15'000); // failure 3
        CHECK(s->state() == "Unhealthy");
        CHECK(get(*s, "/gameserver").j()["status"]["state"] == "Unhealthy");
    }
    SECTION("one late tick evaluates every check it passed") {
        auto s = start(manual(clock));
        at(*s, 14'999);
        CHECK(s->state() == "Scheduled");
        at(*s, 15'000);
        CHECK(s->state() == "Unhealthy");
    }
    SECTION("the initial delay and the threshold are the spec's") {
        auto o = manual(clock);
        o.initial_delay_s = 30;
        o.period_s = 2;
        o.failure_threshold = 1;
        auto s = start(o);
        at(*s, 29'999);
        CHECK(s->state() == "Scheduled");
        at(*s, 30'000);
        CHECK(s->state() == "Unhealthy");
    }
    SECTION("a ping resets the failures") {
        auto s = start(manual(clock));
        CHECK(post(*s, "/ready").status == 200);
        at(*s, 10'000); // two failures
        clock.set(t0 + 10'500);
        CHECK(post(*s, "/health").status == 200);
        at(*s, 15'000); // the ping is in the last period: no failure, and the count is 0
        at(*s, 20'000); // 1
        at(*s, 25'000); // 2
        at(*s, 29'999);
        CHECK(s->state() == "Ready");
        at(*s, 30'000); // 3
        CHECK(s->state() == "Unhealthy");
    }
    SECTION("a ping every period keeps it healthy") {
        auto s = start(manual(clock));
        CHECK(post(*s, "/ready").status == 200);
        for (std::uint64_t t = 1'000; t <= 200'000; t += 4'000) {
            clock.set(t0 + t);
            REQUIRE(post(*s, "/health").status == 200);
            s->tick();
        }
        at(*s, 200'000);
        CHECK(s->state() == "Ready");
        CHECK(s->health_pings() == 50);
    }
    SECTION("health disabled: never Unhealthy") {
        auto o = manual(clock);
        o.health_disabled = true;
        auto s = start(o);
        at(*s, 10'000'000);
        CHECK(s->state() == "Scheduled");
        CHECK(get(*s, "/gameserver").j()["spec"]["health"]["disabled"] == true);
    }
    SECTION("Unhealthy is terminal") {
        auto s = start(manual(clock));
        CHECK(post(*s, "/ready").status == 200);
        at(*s, 20'000);
        REQUIRE(s->state() == "Unhealthy");
        for (const char *path : {"/ready", "/allocate", "/shutdown", "/health"}) CHECK(post(*s, path).status == 200);
        CHECK(post(*s, "/reserve", R"({"seconds":"1"})").status == 200);
        CHECK_FALSE(s->allocate());
        at(*s, 100'000);
        CHECK(s->state() == "Unhealthy");
    }
}

TEST_CASE("agones stand-in: reserve timer with a manual clock") {
    manual_clock clock;
    auto o = manual(clock);
    o.health_disabled = true; // no pings here
    auto s = start(o);
    REQUIRE(post(*s, "/ready").status == 200);
    const auto readies = [&] {
        const auto f = s->features();
        return std::count(f.begin(), f.end(), "ready");
    };

    SECTION("N seconds, then Ready (recorded as ready)") {
        clock.set(t0 + 100);
        CHECK(post(*s, "/reserve", R"({"seconds":"5"})").status == 200);
        CHECK(s->state() == "Reserved");
        clock.set(t0 + 5'099);
        s->tick();
        CHECK(s->state() == "Reserved");
        clock.set(t0 + 5'100);
        s->tick();
        CHECK(s->state() == "Ready");
        CHECK(readies() == 2);
    }
    SECTION("seconds as a JSON number") {
        CHECK(post(*s, "/reserve", R"({"seconds":2})").status == 200);
        clock.set(t0 + 2'000);
        s->tick();
        CHECK(s->state() == "Ready");
    }
    SECTION("0 is forever") {
        CHECK(post(*s, "/reserve", R"({"seconds":"0"})").status == 200);
        clock.set(t0 + 100'000'000);
        s->tick();
        CHECK(s->state() == "Reserved");
        CHECK(readies() == 1);
    }
    SECTION("SDK allocate cancels the timer") {
        CHECK(post(*s, "/reserve", R"({"seconds":"5"})").status == 200);
        CHECK(post(*s, "/allocate").status == 200);
        clock.set(t0 + 10'000);
        s->tick();
        CHECK(s->state() == "Allocated");
        CHECK(readies() == 1);
    }
    SECTION("the allocator cancels the timer") {
        CHECK(post(*s, "/reserve", R"({"seconds":"5"})").status == 200);
        CHECK(s->allocate());
        clock.set(t0 + 10'000);
        s->tick();
        CHECK(s->state() == "Allocated");
    }
    SECTION("ready cancels the timer") {
        CHECK(post(*s, "/reserve", R"({"seconds":"5"})").status == 200);
        CHECK(post(*s, "/ready").status == 200);
        CHECK(post(*s, "/reserve", R"({"seconds":"0"})").status == 200); // forever, from now
        clock.set(t0 + 10'000);
        s->tick();
        CHECK(s->state() == "Reserved");
    }
}

TEST_CASE("agones stand-in: counters refuse out of range, the allocator clamps") {
    auto s = start(quiet()); // rooms 0/10
    const std::string rooms = "/v1beta1/counters/rooms";
    using counter = std::pair<std::int64_t, std::int64_t>;

    auto a = patch(*s, rooms, R"({"capacity":"3"})");
    CHECK(a.status == 200);
    CHECK(a.j() == json::parse(R"({"name":"rooms","count":"0","capacity":"3"})"));
    CHECK(get(*s, "/gameserver").j()["status"]["counters"]["rooms"] == json::parse(R"({"count":"0","capacity":"3"})"));

    check_error(patch(*s, rooms, R"({"countDiff":"-1"})"), 500, 2,
                "out of range. Count must be within range [0,Capacity]. Found Count: -1, Capacity: 3");
    CHECK(s->counter("rooms") == counter{0, 3});
    check_error(patch(*s, rooms, R"({"count":"4"})"), 500, 2,
                "out of range. Count must be within range [0,Capacity]. Found Count: 4, Capacity: 3");
    CHECK(patch(*s, rooms, R"({"countDiff":3})").status == 200); // a number parses too
    CHECK(s->counter("rooms") == counter{3, 3});
    check_error(patch(*s, rooms, R"({"countDiff":"1"})"), 500, 2,
                "out of range. Count must be within range [0,Capacity]. Found Count: 4, Capacity: 3");
    CHECK(s->counter("rooms") == counter{3, 3});
    check_error(patch(*s, rooms, R"({"capacity":"-1"})"), 500, 2,
                "out of range. Capacity must be greater than or equal to 0. Found Capacity: -1");
    // One refused part refuses the whole request: the capacity is not applied either.
    check_error(patch(*s, rooms, R"({"capacity":"10","countDiff":"-5"})"), 500, 2,
                "out of range. Count must be within range [0,Capacity]. Found Count: -2, Capacity: 10");
    CHECK(s->counter("rooms") == counter{3, 3});
    // The new capacity is the one a count is checked against.
    CHECK(patch(*s, rooms, R"({"capacity":"10","count":"9"})").status == 200);
    CHECK(s->counter("rooms") == counter{9, 10});
    // Nothing to do is an error.
    check_error(patch(*s, rooms, R"({})"), 500, 2);
    check_error(patch(*s, rooms, R"({"countDiff":"0"})"), 500, 2);

    // The allocator clamps at the capacity and never fails.
    REQUIRE(post(*s, "/ready").status == 200);
    CHECK(s->allocate());
    CHECK(s->counter("rooms") == counter{10, 10});
    CHECK(s->allocate());
    CHECK(s->counter("rooms") == counter{10, 10});
    CHECK(s->state() == "Allocated");

    check_error(get(*s, "/v1beta1/counters/nope"), 500, 2, "counter not found: nope");
    check_error(patch(*s, "/v1beta1/counters/nope", R"({"countDiff":"1"})"), 500, 2, "counter not found: nope");
    CHECK_FALSE(s->counter("nope"));
    check_error(get(*s, "/v1beta1/lists/players"), 500, 2, "list not found: players");
}

TEST_CASE("agones stand-in: the allocator in Allocated re-annotates and counts rooms") {
    auto s = start(quiet());
    watcher w{s->port()};
    REQUIRE(w.wait_lines(1));

    CHECK_FALSE(s->allocate()); // Scheduled: refused
    CHECK(s->state() == "Scheduled");
    CHECK(s->annotations().count("agones.dev/last-allocated") == 0);
    CHECK(s->counter("rooms")->first == 0);
    check_error(post(*s, "/test/allocate"), 409, 10);

    REQUIRE(post(*s, "/ready").status == 200);
    std::vector<std::string> stamps;
    for (int i = 0; i < 3; ++i) { // back to back: within one millisecond, often
        REQUIRE(s->allocate());
        stamps.push_back(s->annotations().at("agones.dev/last-allocated"));
    }
    CHECK(post(*s, "/test/allocate").status == 200);
    stamps.push_back(s->annotations().at("agones.dev/last-allocated"));
    CHECK(std::set<std::string>(stamps.begin(), stamps.end()).size() == stamps.size());
    const std::regex rfc3339{R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z)"};
    for (const auto &t : stamps) CHECK(std::regex_match(t, rfc3339));
    CHECK(s->counter("rooms")->first == 4);
    CHECK(s->state() == "Allocated");

    // Each allocation is one line on the watch, with its own annotation.
    REQUIRE(w.wait_lines(6)); // the first, Ready, four allocations
    std::vector<std::string> seen;
    for (const auto &gs : w.gameservers())
        if (gs["object_meta"]["annotations"].contains("agones.dev/last-allocated"))
            seen.push_back(gs["object_meta"]["annotations"]["agones.dev/last-allocated"]);
    CHECK(seen == stamps);
}

TEST_CASE("agones stand-in: restart keeps the GameServer and the port") {
    auto s = start(quiet());
    const auto port = s->port();
    REQUIRE(post(*s, "/ready").status == 200);
    REQUIRE(put(*s, "/metadata/label", R"({"key":"session","value":"a1"})").status == 200);
    REQUIRE(patch(*s, "/v1beta1/counters/rooms", R"({"countDiff":"2"})").status == 200);
    const auto uid = get(*s, "/gameserver").j()["object_meta"]["uid"];
    watcher w{port};
    REQUIRE(w.wait_lines(1));

    SECTION("restart()") {
        s->restart(600'000); // down for long: nothing below races the way back
    }
    SECTION("POST /test/restart") {
        CHECK(post(*s, "/test/restart?down_ms=600000").status == 200);
        // It stops from another thread (the handler's own worker cannot wait for itself).
        for (int i = 0; i < 1000 && get(*s, "/gameserver").status != -1; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(w.wait_end()); // the open watch stream ended
    httplib::Client c{"127.0.0.1", port};
    c.set_connection_timeout(2);
    const auto refused = c.Get("/gameserver");
    CHECK_FALSE(refused);
    if (!refused) CHECK(refused.error() == httplib::Error::Connection);
    CHECK(s->state() == "Ready");

    s->restart(50); // a second restart while down replaces the first's down time
    REQUIRE(answers_again(*s));
    CHECK(s->port() == port);
    const auto gs = get(*s, "/gameserver").j();
    CHECK(gs["object_meta"]["uid"] == uid);
    CHECK(gs["status"]["state"] == "Ready");
    CHECK(gs["object_meta"]["labels"]["agones.dev/sdk-session"] == "a1");
    CHECK(gs["status"]["counters"]["rooms"]["count"] == "2");
    watcher again{port};
    CHECK(again.wait_lines(1));
}

TEST_CASE("agones stand-in: malformed input is refused with the gateway's errors") {
    std::vector<std::string> log;
    std::mutex log_mu;
    auto o = quiet();
    o.log = [&](std::string_view line) {
        std::lock_guard lock{log_mu};
        log.emplace_back(line);
    };
    auto s = start(o);

    check_error(post(*s, "/ready", "{bad"), 400, 3);
    check_error(post(*s, "/ready", "[1,2]"), 400, 3);
    check_error(post(*s, "/reserve", R"({"seconds":"abc"})"), 400, 3);
    check_error(post(*s, "/reserve", R"({"seconds":1.5})"), 400, 3);
    check_error(put(*s, "/metadata/label", R"({"key":5,"value":"x"})"), 400, 3);
    CHECK(s->state() == "Scheduled");

    // Keys are Kubernetes qualified names without a prefix; label values are label values.
    check_error(put(*s, "/metadata/label", R"({"key":"bad key","value":"x"})"), 400, 3);
    check_error(put(*s, "/metadata/label", R"({"key":"","value":"x"})"), 400, 3);
    check_error(put(*s, "/metadata/annotation", R"({"key":"-x","value":"x"})"), 400, 3);
    check_error(put(*s, "/metadata/label", json{{"key", std::string(64, 'k')}, {"value", "x"}}.dump()), 400, 3);
    CHECK(put(*s, "/metadata/label", json{{"key", std::string(63, 'k')}, {"value", "x"}}.dump()).status == 200);
    check_error(put(*s, "/metadata/label", R"({"key":"ok","value":"not ok"})"), 400, 3);
    CHECK(put(*s, "/metadata/label", R"({"key":"ok","value":""})").status == 200);
    CHECK(put(*s, "/metadata/annotation", R"({"key":"ok","value":"any text at all"})").status == 200);
    CHECK(s->labels().size() == 2);

    check_error(get(*s, "/nope"), 404, 5, "Not Found");
    check_error(get(*s, "/ready"), 501, 12, "Method Not Allowed");

    // /health: no body at all is a 400; every object in a body is one ping.
    {
        auto c = client(*s);
        const auto r = c.Post("/health");
        REQUIRE(r);
        CHECK(r->status == 400);
    }
    CHECK(s->health_pings() == 0);
    CHECK(post(*s, "/health", "{}\n{} {}").status == 200);
    CHECK(s->health_pings() == 3);
    check_error(post(*s, "/health", "{} 7"), 400, 3);
    CHECK(s->health_pings() == 4); // the pings before the bad value went through
    check_error(post(*s, "/test/restart?down_ms=soon"), 400, 3);

    // Every request was recorded and logged with its status.
    const auto reqs = s->requests();
    REQUIRE(reqs.size() == 19);
    CHECK(reqs.front().method == "POST");
    CHECK(reqs.front().path == "/ready");
    CHECK(reqs.front().body == "{bad");
    CHECK(reqs.front().status == 400);
    CHECK(reqs.back().path == "/test/restart");
    CHECK(reqs.back().status == 400);
    std::lock_guard lock{log_mu};
    CHECK(std::count_if(log.begin(), log.end(),
                        [](const std::string &l) { return l.rfind("POST /ready 400 {bad", 0) == 0; }) == 1);
    CHECK(std::count_if(log.begin(), log.end(),
                        [](const std::string &l) { return l.rfind("GET /nope 404", 0) == 0; }) == 1);
}

TEST_CASE("agones stand-in: many watch streams and requests at once") {
    auto s = start(quiet());
    std::vector<std::unique_ptr<watcher>> watchers;
    for (int i = 0; i < 12; ++i) watchers.push_back(std::make_unique<watcher>(s->port()));
    for (auto &w : watchers) REQUIRE(w->wait_lines(1));
    REQUIRE(post(*s, "/ready").status == 200);
    for (int i = 0; i < 20; ++i) REQUIRE(get(*s, "/gameserver").status == 200);
    for (auto &w : watchers) CHECK(w->wait_state("Ready"));
    const auto f = s->features();
    CHECK(std::count(f.begin(), f.end(), "watch") == 12);
    s.reset();
    for (auto &w : watchers) CHECK(w->wait_end());
}

TEST_CASE("agones stand-in: start refuses bad options and a taken port") {
    auto first = start(quiet());
    auto o = quiet();
    o.port = first->port();
    auto second = agones_standin::start(o);
    REQUIRE_FALSE(second.ok());
    CHECK(second.code() == errc::io);
    CHECK(second.message().find(std::to_string(first->port())) != std::string::npos);

    auto zero = quiet();
    zero.period_s = 0;
    CHECK(agones_standin::start(zero).code() == errc::invalid_argument);
    zero.health_disabled = true; // a disabled check needs no period
    CHECK(agones_standin::start(zero).ok());

    auto over = quiet();
    over.counters = {{"rooms", 11, 10}};
    CHECK(agones_standin::start(over).code() == errc::invalid_argument);
    over.counters = {{"rooms", 0, 10}, {"rooms", 0, 5}};
    CHECK(agones_standin::start(over).code() == errc::invalid_argument);
}
