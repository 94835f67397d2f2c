#include "server_app.hpp"

#include <retcon/host.hpp>
#include <retcon/net.hpp>
#include <retcon/internal/printable.hpp>
#include <retcon_demo/game.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>

namespace retcon::demo {

namespace {

/// The demo arena as a hosted game: a world seeded from the match's parameters, the arena's
/// step, and each slot's score from the final world.
result<hosted_game> make_match(const match_params &p) {
    if (p.players < 1 || p.players > max_players)
        return result<hosted_game>{errc::invalid_argument,
                                   "the demo arena has 1-" + std::to_string(max_players) + " players"};
    hosted_game g;
    g.state = std::make_unique<world>(make_schema());
    world_options wo;
    wo.seed = p.seed;
    init_world(*g.state, wo);
    g.step = game::structured(std::make_shared<game>()); // structured: a desync names the system
    g.config = make_config(p.players, p.tick_hz);
    g.report = [](const world &w, std::span<slot_result> slots) {
        const auto &m = w.resource<match_state>();
        std::uint32_t best = 0;
        for (const auto &s : slots) best = std::max(best, m.score[s.slot]);
        for (auto &s : slots) {
            s.score = m.score[s.slot];
            s.outcome = best == 0 ? "draw" : m.score[s.slot] == best ? "won" : "lost";
        }
    };
    g.metadata = {
        {"game", "retcon demo arena"}, {"seed", std::to_string(p.seed)}, {"players", std::to_string(p.players)}};
    return g;
}

/// The host's settings: the demo's defaults, then the environment (RETCON_* and the
/// platforms' variables), then the options given on the command line.
result<host_options> make_options(const server_settings &s, const env_lookup &env) {
    host_options o;
    const auto apply = [&](const auto &given) {
        if (given("--port")) o.port = s.port;
        if (given("--matches")) o.max_matches = s.matches;
        if (given("--players")) o.open_params.players = s.players;
        if (given("--tick")) o.open_params.tick_hz = s.tick_hz;
        if (given("--seed")) o.open_params.seed = s.seed;
        if (given("--fleet")) o.fleet = s.fleet;
        if (given("--max-peers-per-address")) o.max_peers_per_address = s.max_peers_per_address;
        if (given("--hellos-per-second")) {
            o.hellos_per_second = s.hellos_per_second;
            o.hello_burst =
                static_cast<std::uint32_t>(std::clamp<std::uint64_t>(2ull * s.hellos_per_second, 1, 0xffffffffu));
        }
        if (given("--drain-grace")) o.drain_grace_ms = static_cast<std::uint32_t>(s.drain_grace_s * 1000.0);
        if (given("--replay-dir")) o.replay_dir = s.replay_dir;
        if (given("--match-limit")) o.match_limit = s.match_limit;
        if (given("--metrics-port")) {
            o.serve_metrics = s.metrics_port >= 0;
            o.metrics_port = static_cast<std::uint16_t>(std::max(s.metrics_port, 0));
        }
    };
    apply([](const char *) { return true; });
    if (auto r = apply_environment(o, env); !r) return result<host_options>{r.err()};
    apply([&](const char *name) { return s.given.count(name) != 0; });
    if (s.given.count("--token-key") != 0) {
        o.token_keys.clear();
        for (const auto &path : s.token_keys) {
            auto key = read_verify_key(path);
            if (!key) return result<host_options>{errc::invalid_argument, "--token-key: " + key.message()};
            o.token_keys.push_back(*key);
        }
    }
    o.open_matches = o.max_matches;
    // A match with a duration is the whole run (the README's demo, CI's soak): it is not
    // replaced when it ends, and the server then exits.
    o.reopen_matches = s.duration_s <= 0;
    o.match_duration_ms = static_cast<std::uint32_t>(s.duration_s * 1000.0);
    // Token mode opens its matches when their tokens come, so "not replaced" alone never ends
    // the run: it serves --matches matches, then drains and exits (unless a limit was given).
    if (s.duration_s > 0 && !o.token_keys.empty() && o.match_limit == 0) o.match_limit = o.max_matches;
    o.single_replay_path = s.record;
    o.single_trace_path = s.trace;
    o.trace_dir = s.trace_dir;
    o.session.max_spectators = s.max_spectators;
    o.session.record_settings.keyframe_interval = s.keyframe_interval;
    o.session.forensics_dir = s.forensics_dir;
    return o;
}

/// Every orchestrator's name, in the table's order (--print-config).
nlohmann::json orchestrator_names() {
    nlohmann::json names = nlohmann::json::array();
    for (const auto &d : orchestrators()) names.push_back(std::string{d.name});
    return names;
}

/// --print-config: what the server would run with, for people and for the deployment checks
/// (tests/deploy/check_manifests.py).
void print_config(const host_options &o, platform p, const env_lookup &environment) {
    const agones_options a;
    const auto sidecar_port = agones_sdk_port(environment); // make_orchestrator checked it
    // Every variable the host reads, and apart the ones this process was given: 23 names alone
    // did not say which of them were in effect.
    nlohmann::json env = nlohmann::json::array(), env_set = nlohmann::json::array();
    for (const auto &v : host_environment_variables()) {
        env.push_back(std::string{v.name});
        if (environment(std::string{v.name})) env_set.push_back(std::string{v.name});
    }
    const nlohmann::json j = {
        {"port", o.port},
        {"bind", o.bind_host},
        {"max_matches", o.max_matches},
        {"match_limit", o.match_limit},
        {"fleet", o.fleet},
        {"token_keys", o.token_keys.size()},
        {"replay_dir", o.replay_dir.string()},
        {"keyframe_interval", o.session.record_settings.keyframe_interval},
        {"drain_grace_s", o.drain_grace_ms / 1000.0},
        {"metrics_port", o.serve_metrics ? nlohmann::json(o.metrics_port) : nlohmann::json(nullptr)},
        {"metrics_bind", o.metrics_bind},
        {"orchestrator", std::string{to_string(p)}},
        {"orchestrators", orchestrator_names()},
        {"agones",
         {{"sdk_port", sidecar_port ? *sidecar_port : 0},
          {"health_interval_ms", a.health_interval_ms},
          {"heartbeat_window_ms", a.heartbeat_window_ms},
          {"rooms_counter", a.rooms_counter},
          {"shutdown_wait_ms", a.shutdown_wait_ms}}},
        {"environment", env},
        {"environment_set", env_set},
    };
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
}

} // namespace

std::vector<std::string> orchestrator_choices() {
    std::vector<std::string> names{"auto"};
    for (const auto &d : orchestrators()) names.emplace_back(d.name);
    return names;
}

std::string orchestrator_help() {
    std::string help = "what runs this process: auto (from the environment";
    for (const auto &d : orchestrators())
        if (!d.selected_by.empty())
            help += ", " + std::string{d.name} + " if " + std::string{d.selected_by} + " is set";
    help += ")";
    for (const auto &d : orchestrators()) help += "; " + std::string{d.name} + ": " + std::string{d.help};
    return help;
}

int run_server(const server_settings &s) {
    const auto env = process_environment();
    auto made = make_options(s, env);
    if (!made) {
        std::fprintf(stderr, "demo_server: %s\n", made.message().c_str());
        return 2;
    }
    host_options &o = *made;
    const auto *chosen = find_orchestrator(s.orchestrator); // --orchestrator checked the name
    const platform p = chosen ? chosen->id : detect_platform(env);
    auto orch = make_orchestrator(p, env);
    if (!orch) {
        std::fprintf(stderr, "demo_server: %s\n", orch.message().c_str());
        return 2;
    }
    if (s.print_config) {
        print_config(o, p, env);
        return 0;
    }
    auto created = match_host::create(o, make_match);
    if (!created) {
        std::fprintf(stderr, "demo_server: %s\n", created.message().c_str());
        return 2;
    }
    match_host &host = **created;
    host.on_log([](std::string_view line) {
        std::printf("%.*s\n", static_cast<int>(line.size()), line.data());
        std::fflush(stdout);
    });
    // The summary scripts and tests read (docs/hosting.md, "Match results" has the JSON line).
    host.on_result([](const match_result &r) {
        std::printf("demo_server: match over after %u frames; players joined %llu; desyncs: %llu; unverified desyncs: "
                    "%llu; replaced inputs %llu",
                    r.final_frame, static_cast<unsigned long long>(r.joins),
                    static_cast<unsigned long long>(r.desyncs_verified),
                    static_cast<unsigned long long>(r.desyncs_unverified),
                    static_cast<unsigned long long>(r.replaced_inputs));
        // The end reason may carry a game's exception text: one line, as the host's log
        // (docs/hosting.md, "Logs").
        const auto line = [](const std::string &text) {
            return internal::printable(text, internal::printable_for::line);
        };
        if (!r.replay_path.empty())
            std::printf("; replay %s (%llu bytes)", line(r.replay_path).c_str(),
                        static_cast<unsigned long long>(r.replay_bytes));
        // Not only in the host's log: a lost replay is what an operator must see.
        if (r.recording_failed) std::printf("; recording failed: %s", line(r.recording_error).c_str());
        std::printf("; match %s (%s)\n", line(r.match_id).c_str(), line(r.end_reason).c_str());
        std::fflush(stdout);
    });
    std::printf(
        "demo_server: listening on UDP port %u for %u players at %u Hz%s%s\n", host.port(), s.players, s.tick_hz,
        s.duration_s > 0 ? (", match lasts " + std::to_string(static_cast<int>(s.duration_s)) + " s").c_str() : "",
        host.metrics_port() != 0
            ? (", metrics on http://127.0.0.1:" + std::to_string(host.metrics_port()) + "/metrics").c_str()
            : "");
    std::fflush(stdout);

    // Once a second, a status line from the host's published counters (a thread of the demo's:
    // the ticking thread never formats text in steady state).
    std::mutex status_mutex;
    std::condition_variable status_wake;
    bool done = false;
    std::thread status;
    if (!s.quiet)
        status = std::thread{[&] {
            sigset_t set;
            sigfillset(&set);
            pthread_sigmask(SIG_BLOCK, &set, nullptr);
            std::unique_lock lock{status_mutex};
            while (!status_wake.wait_for(lock, std::chrono::seconds(1), [&] { return done; })) {
                const auto m = host.metrics();
                std::printf("status: matches %u, players %u, tick lateness p50 %llu us, p99 %llu us, max %llu us%s\n",
                            m.matches, m.players, static_cast<unsigned long long>(m.lateness.quantile_us(0.5)),
                            static_cast<unsigned long long>(m.lateness.quantile_us(0.99)),
                            static_cast<unsigned long long>(m.lateness.max_us()), m.draining ? ", draining" : "");
                std::fflush(stdout);
            }
        }};

    const int status_code = serve(host, **orch);
    {
        std::lock_guard lock{status_mutex};
        done = true;
    }
    status_wake.notify_one();
    if (status.joinable()) status.join();
    return status_code;
}

} // namespace retcon::demo
