// Configuration from the environment and the environment-only hosts' orchestrators
// (docs/hosting.md, "Configuration from the environment", "Environment-only hosts").
#include <catch2/catch.hpp>

#include <retcon/host.hpp>

#include "host_fixture.hpp"

#include <common/temp_dir.hpp>

#include <httplib.h>

#include <chrono>
#include <map>
#include <mutex>
#include <thread>

using namespace retcon;

namespace {

env_lookup env_of(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const std::string &name) -> std::optional<std::string> {
        if (auto it = vars.find(name); it != vars.end()) return it->second;
        return std::nullopt;
    };
}

} // namespace

TEST_CASE("environment: the platform is detected from its variables", "[host][env]") {
    CHECK(detect_platform(env_of({})) == platform::plain);
    CHECK(detect_platform(env_of({{"AGONES_SDK_HTTP_PORT", "9358"}})) == platform::agones);
    CHECK(detect_platform(env_of({{"ARBITRIUM_REQUEST_ID", "a1b2c3d4e5f6"}})) == platform::edgegap);
    CHECK(detect_platform(env_of({{"HATHORA_PROCESS_ID", "p-1"}})) == platform::hathora);
    CHECK(detect_platform(env_of({{"HATHORA_PROCESS_ID", ""}})) == platform::plain); // set but empty: not there
    for (const auto p : {platform::plain, platform::agones, platform::edgegap, platform::hathora})
        CHECK(platform_from_string(to_string(p)) == p);
    CHECK_FALSE(platform_from_string("kubernetes").has_value());
}

TEST_CASE("environment: RETCON_* and the platforms' variables configure the host", "[host][env]") {
    retcon::test::temp_dir dir;
    const auto k1 = generate_signing_key(1), k2 = generate_signing_key(2);
    REQUIRE(write_key_file(dir.path() / "a.pub", public_key_of(k1)));
    REQUIRE(write_key_file(dir.path() / "b.pub", public_key_of(k2)));
    host_options o;
    REQUIRE(apply_environment(
        o, env_of({{"RETCON_PORT", "7001"},
                   {"PORT", "8080"}, // RETCON_PORT wins
                   {"RETCON_BIND", "10.0.0.2"},
                   {"RETCON_MATCHES", "12"},
                   {"RETCON_MATCH_LIMIT", "1"},
                   {"RETCON_FLEET", "eu-west"},
                   {"RETCON_TOKEN_KEYS", (dir.path() / "a.pub").string() + "," + (dir.path() / "b.pub").string()},
                   {"RETCON_REPLAY_DIR", "/var/lib/retcon"},
                   {"RETCON_DRAIN_GRACE_S", "12.5"},
                   {"RETCON_METRICS_PORT", "9100"},
                   {"RETCON_METRICS_BIND", "0.0.0.0"}})));
    CHECK(o.port == 7001);
    CHECK(o.bind_host == "10.0.0.2");
    CHECK(o.max_matches == 12);
    CHECK(o.match_limit == 1);
    CHECK(o.fleet == "eu-west");
    REQUIRE(o.token_keys.size() == 2);
    CHECK(o.token_keys[0] == public_key_of(k1));
    CHECK(o.token_keys[1] == public_key_of(k2));
    CHECK(o.replay_dir == "/var/lib/retcon");
    CHECK(o.drain_grace_ms == 12500);
    CHECK(o.serve_metrics);
    CHECK(o.metrics_port == 9100);
    CHECK(o.metrics_bind == "0.0.0.0");

    host_options e; // Edgegap's internal port before PORT
    REQUIRE(apply_environment(e, env_of({{"ARBITRIUM_PORT_GAMEPORT_INTERNAL", "31000"}, {"PORT", "8080"}})));
    CHECK(e.port == 31000);
    host_options p;
    REQUIRE(apply_environment(p, env_of({{"PORT", "8080"}})));
    CHECK(p.port == 8080);
    host_options untouched;
    REQUIRE(apply_environment(untouched, env_of({})));
    CHECK(untouched.port == host_options{}.port);
    CHECK_FALSE(untouched.serve_metrics);

    host_options h; // Hathora's initial room configuration: the open match's parameters
    REQUIRE(apply_environment(
        h, env_of({{"HATHORA_INITIAL_ROOM_CONFIG", R"({"players":4,"tick_hz":30,"seed":99,"settings":"map=dust"})"}})));
    CHECK(h.open_params == match_params{4, 30, 99, "map=dust"});
}

TEST_CASE("environment: a malformed variable is an error naming it, and changes nothing", "[host][env]") {
    const std::vector<std::pair<std::string, std::string>> bad{
        {"RETCON_PORT", "70000"},
        {"RETCON_PORT", "77x"},
        {"RETCON_PORT", ""},
        {"PORT", "-1"},
        {"RETCON_MATCHES", "0"},
        {"RETCON_MATCHES", "many"},
        {"RETCON_MATCHES", "1001"}, // one limit with demo_server --matches: max_host_matches
        {"RETCON_DRAIN_GRACE_S", "soon"},
        {"RETCON_DRAIN_GRACE_S", "-3"},
        {"RETCON_METRICS_PORT", "http"},
        {"RETCON_TOKEN_KEYS", "/nonexistent/lobby.pub"},
        {"RETCON_TOKEN_KEYS", ",,"},
        {"HATHORA_INITIAL_ROOM_CONFIG", "players=4"},
        {"HATHORA_INITIAL_ROOM_CONFIG", R"({"players":0})"},
        {"HATHORA_INITIAL_ROOM_CONFIG", R"({"players":4,"map":"x"})"},
        {"HATHORA_INITIAL_ROOM_CONFIG", R"({"seed":-1})"},
    };
    for (const auto &[name, value] : bad) {
        INFO(name << "=" << value);
        host_options o;
        o.port = 1234;
        const auto r = apply_environment(o, env_of({{name, value}}));
        REQUIRE_FALSE(r);
        CHECK_THAT(r.message(), Catch::Contains(name));
        CHECK(o.port == 1234);
    }
    host_options partly; // a good variable beside a bad one is not applied either
    partly.port = 1234;
    REQUIRE_FALSE(apply_environment(partly, env_of({{"RETCON_PORT", "7001"}, {"RETCON_MATCHES", "0"}})));
    CHECK(partly.port == 1234);
    // Every variable read is listed for the docs and the deployment checks.
    std::vector<std::string> names;
    for (const auto &v : host_environment_variables()) names.emplace_back(v.name);
    for (const auto &[name, value] : bad) CHECK(std::find(names.begin(), names.end(), name) != names.end());
    CHECK_FALSE(make_orchestrator(platform::agones, env_of({{"AGONES_SDK_HTTP_PORT", "sidecar"}})));
    // The sidecar's port: the variable, else the SDK's default; one parser for every reader.
    CHECK(agones_sdk_port(env_of({})).value() == 9358);
    CHECK(agones_sdk_port(env_of({{"AGONES_SDK_HTTP_PORT", "9123"}})).value() == 9123);
    CHECK(agones_sdk_port(env_of({{"AGONES_SDK_HTTP_PORT", ""}})).value() == 9358);
    for (const char *malformed : {"0", "65536", "9358x", "-1"}) {
        const auto r = agones_sdk_port(env_of({{"AGONES_SDK_HTTP_PORT", malformed}}));
        REQUIRE_FALSE(r);
        CHECK_THAT(r.message(), Catch::Contains("AGONES_SDK_HTTP_PORT"));
    }
}

TEST_CASE(
    "environment: Edgegap's orchestrator stops the deployment with DELETE and the raw token when the host is done",
    "[host][env]") {
    httplib::Server api;
    std::mutex m;
    std::vector<std::string> seen;
    int failures_left = 1; // the first call fails (a 503): the orchestrator retries
    api.Delete(R"(/v1/self/stop/(\w+)/(\w+))", [&](const httplib::Request &req, httplib::Response &res) {
        std::lock_guard lock{m};
        seen.push_back(req.method + " " + req.path + " auth=" + req.get_header_value("Authorization"));
        res.status = failures_left-- > 0 ? 503 : 200;
        res.set_content("{}", "application/json");
    });
    const int api_port = api.bind_to_any_port("127.0.0.1");
    REQUIRE(api_port > 0);
    std::thread serving{[&] { api.listen_after_bind(); }};

    const auto env = env_of(
        {{"ARBITRIUM_REQUEST_ID", "a1b2c3d4e5f6"},
         {"ARBITRIUM_DELETE_URL", "http://127.0.0.1:" + std::to_string(api_port) + "/v1/self/stop/a1b2c3d4e5f6/42"},
         {"ARBITRIUM_DELETE_TOKEN", "0123456789abcdef0123456789abcdef"}});
    host_options o;
    o.port = 0;
    o.match_limit = 1;
    REQUIRE(apply_environment(o, env));
    auto host = match_host::create(o, test::counter_game);
    REQUIRE(host);
    std::vector<std::string> log;
    (*host)->on_log([&](std::string_view line) {
        std::lock_guard lock{m};
        log.emplace_back(line);
    });
    auto orch = make_orchestrator(detect_platform(env), env);
    REQUIRE(orch);
    CHECK((*orch)->name() == "edgegap");
    (*host)->request_drain(); // nothing to serve: run returns at once, then the self-stop
    serve_options so;
    so.handle_signals = false;
    CHECK(serve(**host, **orch, so) == 0);
    api.stop();
    serving.join();
    REQUIRE(seen.size() == 2);
    CHECK(seen[1] == "DELETE /v1/self/stop/a1b2c3d4e5f6/42 auth=0123456789abcdef0123456789abcdef");
    bool accepted = false;
    for (const auto &l : log) accepted = accepted || l.find("edgegap: self-stop accepted") != std::string::npos;
    CHECK(accepted);
}
