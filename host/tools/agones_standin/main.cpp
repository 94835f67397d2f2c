// retcon-agones-standin — the Agones SDK sidecar stand-in as a program, for scripts that drive
// a server against it (docs/agones-standin.md). The stand-in itself is agones_standin.hpp,
// tested in tests/host/agones_standin.cpp. Exits 0 on SIGTERM or SIGINT, 2 on a bad command
// line, 1 when it cannot listen or write the port file.
#include "agones_standin.hpp"

#include <CLI/CLI.hpp>

#include <charconv>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <pthread.h>

namespace {

/// "NAME=COUNT/CAPACITY" → a counter of the GameServer spec; nullopt when malformed.
std::optional<std::tuple<std::string, std::int64_t, std::int64_t>> parse_counter(const std::string &s) {
    const auto eq = s.find('=');
    const auto slash = s.find('/', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || eq == 0 || slash == std::string::npos) return std::nullopt;
    const auto number = [](std::string_view v) -> std::optional<std::int64_t> {
        std::int64_t out = 0;
        const auto r = std::from_chars(v.data(), v.data() + v.size(), out);
        if (v.empty() || r.ec != std::errc{} || r.ptr != v.data() + v.size()) return std::nullopt;
        return out;
    };
    const std::string_view sv{s};
    const auto count = number(sv.substr(eq + 1, slash - eq - 1));
    const auto capacity = number(sv.substr(slash + 1));
    if (!count || !capacity) return std::nullopt;
    return std::tuple{s.substr(0, eq), *count, *capacity};
}

bool write_port_file(const std::string &path, std::uint16_t port) {
    // Written whole then renamed, so a script polling for it never reads half a number.
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out{tmp, std::ios::trunc};
        out << port << '\n';
        if (!out.flush()) return false;
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    return !ec;
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app{
        "retcon-agones-standin: a stand-in for the Agones SDK sidecar's HTTP gateway (docs/agones-standin.md).\n"
        "It is NOT Agones: it keeps one GameServer in memory and answers the SDK's REST contract."};
    retcon::agones_standin_options opt;
    opt.port = 9358;
    int port = 9358;
    std::string port_file;
    std::vector<std::string> counters;
    app.add_option("--port", port, "HTTP port (0: a free one)")->capture_default_str()->check(CLI::Range(0, 65535));
    app.add_option("--port-file", port_file, "write the bound port to this file (for scripts)");
    app.add_option("--health-initial-delay", opt.initial_delay_s, "spec.health.initialDelaySeconds")
        ->capture_default_str();
    app.add_option("--health-period", opt.period_s, "spec.health.periodSeconds")->capture_default_str();
    app.add_option("--health-failure-threshold", opt.failure_threshold, "spec.health.failureThreshold")
        ->capture_default_str();
    app.add_flag("--health-disabled", opt.health_disabled, "spec.health.disabled: never Unhealthy");
    app.add_option("--counter", counters, "a Counter NAME=COUNT/CAPACITY (repeatable; default rooms=0/10)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        return app.exit(e);
    }
    opt.port = static_cast<std::uint16_t>(port);
    if (!counters.empty()) {
        opt.counters.clear();
        for (const auto &c : counters) {
            auto parsed = parse_counter(c);
            if (!parsed) {
                std::fprintf(stderr, "retcon-agones-standin: --counter %s: expected NAME=COUNT/CAPACITY\n", c.c_str());
                return 2;
            }
            opt.counters.push_back(std::move(*parsed));
        }
    }

    // SIGTERM and SIGINT are taken by sigwait below; every thread started from here on has
    // them blocked.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    auto standin = retcon::agones_standin::start(std::move(opt));
    if (!standin) {
        std::fprintf(stderr, "retcon-agones-standin: %s\n", standin.message().c_str());
        return standin.code() == retcon::errc::invalid_argument ? 2 : 1;
    }
    const auto bound = (*standin)->port();
    std::printf("agones stand-in: listening on 127.0.0.1:%u\n", static_cast<unsigned>(bound));
    std::fflush(stdout);
    if (!port_file.empty() && !write_port_file(port_file, bound)) {
        std::fprintf(stderr, "retcon-agones-standin: cannot write the port file %s\n", port_file.c_str());
        return 1;
    }

    int sig = 0;
    sigwait(&signals, &sig);
    std::printf("agones stand-in: %s; stopping\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    std::fflush(stdout);
    standin->reset();
    return 0;
}
