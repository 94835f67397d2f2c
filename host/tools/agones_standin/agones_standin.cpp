// The Agones SDK sidecar stand-in (docs/agones-standin.md): the sidecar's HTTP/REST gateway
// written from its documented contract, with the GameServer kept in memory.
#include "agones_standin.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>
#include <retcon/internal/printable.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <deque>
#include <limits>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include <sys/socket.h>

namespace retcon {

namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json; // output keeps the proto's field order

constexpr std::string_view sdk_prefix = "agones.dev/sdk-";
constexpr const char *last_allocated_key = "agones.dev/last-allocated";
constexpr std::size_t history_limit = 256; // watch lines kept for a watcher that lags
constexpr std::size_t worker_threads = 32; // watch streams hold one each
constexpr std::size_t max_body = 1u << 20;
constexpr std::size_t log_body_bytes = 200;
constexpr std::uint32_t max_down_ms = 3'600'000;
constexpr const char *content_type = "application/json";
// The watch stream's type has a parameter so that the HTTP library never compresses it: a
// gzip stream would hold the lines back until it ends.
constexpr const char *stream_content_type = "application/json; charset=utf-8";

// gRPC codes the gateway's error bodies carry (google.rpc.Status), and the HTTP status each maps to.
enum grpc_code : int {
    unknown = 2,
    invalid_argument = 3,
    not_found = 5,
    aborted = 10,
    unimplemented = 12,
    unavailable = 14,
};

/// Marks a request answered by our own routing, so that the error handler (which the HTTP
/// library calls for every status >= 400) records only the requests refused before routing.
thread_local bool answered_by_route = false;

std::string dump(const ojson &j) { return j.dump(-1, ' ', false, ojson::error_handler_t::replace); }

std::string status_body(int code, const std::string &message) {
    return dump(ojson{{"code", code}, {"message", message}, {"details", ojson::array()}});
}

void reply_error(httplib::Response &res, int http, int code, const std::string &message) {
    res.status = http;
    res.set_content(status_body(code, message), content_type);
}

void reply_json(httplib::Response &res, const ojson &j) {
    res.status = 200;
    res.set_content(dump(j), content_type);
}

bool ascii_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/// Alphanumerics, '-', '_' and '.', starting and ending with an alphanumeric (Kubernetes).
bool k8s_charset(std::string_view s) {
    if (s.empty() || !ascii_alnum(s.front()) || !ascii_alnum(s.back())) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return ascii_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

/// What is wrong with a qualified-name key without a prefix (empty: nothing), in the words of
/// Kubernetes' validation.
std::string key_problems(std::string_view key) {
    if (key.empty()) return "name part must be non-empty";
    std::string out;
    if (key.size() > 63) out = "name part must be no more than 63 characters";
    if (!k8s_charset(key)) {
        if (!out.empty()) out += ", ";
        out += "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
               "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
               "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    }
    return out;
}

std::string label_value_problems(std::string_view value) {
    if (value.empty()) return {};
    std::string out;
    if (value.size() > 63) out = "must be no more than 63 characters";
    if (!k8s_charset(value)) {
        if (!out.empty()) out += ", ";
        out += "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
               "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
               "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    }
    return out;
}

/// A time as Go's `time.MarshalText` writes it in UTC: RFC 3339 with up to nine fraction
/// digits, trailing zeros dropped.
std::string rfc3339_nano(std::int64_t ns) {
    constexpr std::int64_t billion = 1'000'000'000;
    std::int64_t secs = ns / billion, frac = ns % billion;
    if (frac < 0) {
        frac += billion;
        --secs;
    }
    const auto t = static_cast<std::time_t>(secs);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    std::string out = buf;
    if (frac != 0) {
        char digits[16];
        std::snprintf(digits, sizeof digits, "%09lld", static_cast<long long>(frac));
        std::string d = digits;
        while (!d.empty() && d.back() == '0') d.pop_back();
        out += '.';
        out += d;
    }
    return out + 'Z';
}

std::string random_uid() {
    std::random_device rd;
    std::mt19937_64 gen{(std::uint64_t{rd()} << 32) ^ rd()};
    const auto a = gen(), b = gen();
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08llx-%04llx-4%03llx-%04llx-%012llx", static_cast<unsigned long long>(a >> 32),
                  static_cast<unsigned long long>((a >> 16) & 0xffff), static_cast<unsigned long long>(a & 0xfff),
                  static_cast<unsigned long long>(0x8000 | (b >> 50)),
                  static_cast<unsigned long long>(b & 0xffffffffffffULL));
    return buf;
}

/// The request body as the gateway decodes it: an empty body is an empty message; anything
/// else must be one JSON object. A message for the 400 when it is not.
struct body_fields {
    json obj = json::object();
    std::string error;

    explicit body_fields(const std::string &body) {
        if (body.find_first_not_of(" \t\r\n") == std::string::npos) return;
        obj = json::parse(body, nullptr, false);
        if (obj.is_discarded()) {
            error = "proto: syntax error: the body is not valid JSON";
            obj = json::object();
        } else if (obj.is_null()) {
            obj = json::object();
        } else if (!obj.is_object()) {
            error = "proto: unexpected token " +
                    obj.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 40) +
                    ": the body must be a JSON object";
            obj = json::object();
        }
    }

    [[nodiscard]] bool ok() const { return error.empty(); }

    /// A string field; absent or null: nullopt.
    std::optional<std::string> string_field(const char *name) {
        const auto it = obj.find(name);
        if (it == obj.end() || it->is_null()) return std::nullopt;
        if (!it->is_string()) {
            fail(std::string{"invalid value for string field "} + name + ": " +
                 it->dump(-1, ' ', false, json::error_handler_t::replace));
            return std::nullopt;
        }
        return it->get<std::string>();
    }

    /// An int64 field (or Int64Value): a JSON string or a number; absent or null: nullopt.
    std::optional<std::int64_t> int64_field(const char *name) {
        const auto it = obj.find(name);
        if (it == obj.end() || it->is_null()) return std::nullopt;
        const auto bad = [&] {
            fail(std::string{"invalid value for int64 field "} + name + ": " +
                 it->dump(-1, ' ', false, json::error_handler_t::replace));
            return std::nullopt;
        };
        if (it->is_number_integer() && !it->is_number_unsigned()) return it->get<std::int64_t>();
        if (it->is_number_unsigned()) {
            const auto u = it->get<std::uint64_t>();
            if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return bad();
            return static_cast<std::int64_t>(u);
        }
        if (it->is_number_float()) {
            const double d = it->get<double>();
            if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) >= 9.2e18) return bad();
            return static_cast<std::int64_t>(d);
        }
        if (it->is_string()) {
            const auto &s = it->get_ref<const std::string &>();
            std::int64_t v = 0;
            const auto *end = s.data() + s.size();
            const auto r = std::from_chars(s.data(), end, v);
            if (s.empty() || r.ec != std::errc{} || r.ptr != end) return bad();
            return v;
        }
        return bad();
    }

private:
    void fail(std::string message) {
        if (error.empty()) error = "proto: " + std::move(message);
    }
};

/// Splits a body into its top-level JSON values (the gateway decodes a client stream as a
/// sequence of values). Stops at the first value it cannot delimit; @p rest is what is left.
std::vector<std::string_view> json_sequence(std::string_view s, std::string_view &rest) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    const auto skip_ws = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
    };
    for (skip_ws(); i < s.size(); skip_ws()) {
        const std::size_t begin = i;
        if (s[i] == '{' || s[i] == '[') {
            int depth = 0;
            bool in_string = false, escaped = false;
            for (; i < s.size(); ++i) {
                const char c = s[i];
                if (in_string) {
                    if (escaped) escaped = false;
                    else if (c == '\\')
                        escaped = true;
                    else if (c == '"')
                        in_string = false;
                } else if (c == '"') {
                    in_string = true;
                } else if (c == '{' || c == '[') {
                    ++depth;
                } else if (c == '}' || c == ']') {
                    if (--depth == 0) {
                        ++i;
                        break;
                    }
                }
            }
            if (depth != 0) {
                rest = s.substr(begin);
                return out;
            }
        } else { // a scalar: up to the next delimiter (it is refused as a ping anyway)
            while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n' && s[i] != '{' &&
                   s[i] != '[')
                ++i;
        }
        out.push_back(s.substr(begin, i - begin));
    }
    rest = {};
    return out;
}

/// The endpoints, from the path alone (the method is checked apart, for the gateway's 501).
enum class endpoint {
    none,
    ready,
    allocate,
    shutdown,
    health,
    reserve,
    gameserver,
    watch,
    label,
    annotation,
    counter,
    list,
    list_add,
    list_remove,
    player_connect,
    player_disconnect,
    player_capacity,
    player_count,
    player_connected,
    test_allocate,
    test_state,
    test_restart,
};

struct target {
    endpoint e = endpoint::none;
    std::string arg; // a counter's or a list's name
};

target parse_target(const std::string &path) {
    static const std::map<std::string, endpoint, std::less<>> fixed{
        {"/ready", endpoint::ready},
        {"/allocate", endpoint::allocate},
        {"/shutdown", endpoint::shutdown},
        {"/health", endpoint::health},
        {"/reserve", endpoint::reserve},
        {"/gameserver", endpoint::gameserver},
        {"/watch/gameserver", endpoint::watch},
        {"/metadata/label", endpoint::label},
        {"/metadata/annotation", endpoint::annotation},
        {"/alpha/player/connect", endpoint::player_connect},
        {"/alpha/player/disconnect", endpoint::player_disconnect},
        {"/alpha/player/capacity", endpoint::player_capacity},
        {"/alpha/player/count", endpoint::player_count},
        {"/alpha/player/connected", endpoint::player_connected},
        {"/test/allocate", endpoint::test_allocate},
        {"/test/state", endpoint::test_state},
        {"/test/restart", endpoint::test_restart},
    };
    if (const auto it = fixed.find(path); it != fixed.end()) return {it->second, {}};
    const auto tail = [&](std::string_view head) -> std::optional<std::string> {
        if (path.size() <= head.size() || path.compare(0, head.size(), head) != 0) return std::nullopt;
        std::string rest = path.substr(head.size());
        if (rest.find('/') != std::string::npos) return std::nullopt;
        return rest;
    };
    if (auto name = tail("/v1beta1/counters/")) return {endpoint::counter, *name};
    if (auto name = tail("/alpha/player/connected/")) return {endpoint::player_connected, *name};
    if (auto name = tail("/v1beta1/lists/")) {
        for (const auto &[suffix, e] : {std::pair{std::string_view{":addValue"}, endpoint::list_add},
                                        std::pair{std::string_view{":removeValue"}, endpoint::list_remove}})
            if (name->size() > suffix.size() && name->compare(name->size() - suffix.size(), suffix.size(), suffix) == 0)
                return {e, name->substr(0, name->size() - suffix.size())};
        return {endpoint::list, *name};
    }
    return {};
}

bool method_allowed(endpoint e, const std::string &m) {
    switch (e) {
    case endpoint::none: return false;
    case endpoint::gameserver:
    case endpoint::watch:
    case endpoint::player_count:
    case endpoint::player_connected:
    case endpoint::test_state: return m == "GET";
    case endpoint::label:
    case endpoint::annotation: return m == "PUT";
    case endpoint::counter:
    case endpoint::list: return m == "GET" || m == "PATCH";
    case endpoint::player_capacity: return m == "GET" || m == "PUT";
    default: return m == "POST";
    }
}

std::string one_line(std::string_view body) {
    std::string out =
        retcon::internal::printable(body.substr(0, log_body_bytes), retcon::internal::printable_for::line);
    if (body.size() > log_body_bytes) out += "...";
    return out;
}

} // namespace

struct agones_standin::impl {
    agones_standin_options opt;

    // ---------------------------------------------------------------- guarded by mu
    mutable std::mutex mu;
    mutable std::condition_variable cv; // a change, listening stops or starts, stopping
    std::string state = "Scheduled";
    std::map<std::string, std::string> labels, annotations;
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> counters;
    std::vector<std::string> counter_order; // the spec's order, for the JSON
    std::string uid;
    std::int64_t creation_s = 0;
    std::uint64_t resource_version = 1;
    std::int64_t last_allocated_ns = 0;
    std::uint64_t changes = 0;                                 // one per change of the GameServer
    std::deque<std::pair<std::uint64_t, std::string>> history; // (change, its watch line)
    std::vector<request_record> reqs;
    std::vector<std::string> feats;
    std::uint64_t pings = 0;
    std::uint64_t next_check_ms = 0; // the health checker's next evaluation
    std::optional<std::uint64_t> last_ping_ms;
    std::uint32_t failures = 0;
    std::optional<std::uint64_t> reserve_deadline_ms;
    bool listening = false;
    std::uint64_t generation = 0; // one per listening period: a watch ends with its own
    std::uint64_t restart_gen = 0;
    bool stopping = false;

    // ---------------------------------------------------------------- guarded by life_mu
    std::mutex life_mu; // starting and stopping the listener, one at a time
    std::unique_ptr<httplib::Server> server;
    std::thread listener;

    std::atomic<std::uint16_t> bound_port{0};
    std::mutex threads_mu;
    std::vector<std::thread> threads; // restarts
    std::thread timer;
    std::mutex log_mu;

    explicit impl(agones_standin_options o) : opt{std::move(o)} {
        if (!opt.clock_ms) {
            opt.clock_ms = [] {
                using namespace std::chrono;
                return static_cast<std::uint64_t>(
                    duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count());
            };
        }
        if (!opt.log) {
            opt.log = [](std::string_view line) {
                std::fwrite(line.data(), 1, line.size(), stdout);
                std::fputc('\n', stdout);
                std::fflush(stdout);
            };
        }
    }

    void log(std::string_view line) {
        std::lock_guard lock{log_mu};
        opt.log(line);
    }

    [[nodiscard]] std::uint64_t now() const { return opt.clock_ms(); }
    [[nodiscard]] std::uint64_t period_ms() const { return std::uint64_t{opt.period_s} * 1000; }

    // ---------------------------------------------------------------- the GameServer

    [[nodiscard]] static bool terminal(const std::string &s) { return s == "Unhealthy" || s == "Shutdown"; }

    [[nodiscard]] ojson gameserver_locked() const {
        ojson counters_j = ojson::object();
        for (const auto &name : counter_order) {
            const auto &[count, capacity] = counters.at(name);
            counters_j[name] = ojson{{"count", std::to_string(count)}, {"capacity", std::to_string(capacity)}};
        }
        ojson labels_j = ojson::object(), annotations_j = ojson::object();
        for (const auto &[k, v] : labels) labels_j[k] = v;
        for (const auto &[k, v] : annotations) annotations_j[k] = v;
        return ojson{
            {"object_meta",
             {{"name", opt.name},
              {"namespace", opt.namespace_},
              {"uid", uid},
              {"resource_version", std::to_string(resource_version)},
              {"generation", "1"},
              {"creation_timestamp", std::to_string(creation_s)},
              {"deletion_timestamp", "0"},
              {"annotations", annotations_j},
              {"labels", labels_j}}},
            {"spec",
             {{"health",
               {{"disabled", opt.health_disabled},
                {"period_seconds", opt.period_s},
                {"failure_threshold", opt.failure_threshold},
                {"initial_delay_seconds", opt.initial_delay_s}}}}},
            {"status",
             {{"state", state},
              {"address", "127.0.0.1"},
              {"addresses", ojson::array({{{"type", "InternalIP"}, {"address", "127.0.0.1"}}})},
              {"ports", ojson::array({{{"name", "default"}, {"port", 7777}}})},
              {"players", nullptr},
              {"counters", counters_j},
              {"lists", ojson::object()}}},
        };
    }

    [[nodiscard]] std::string watch_line_locked() const { return dump(ojson{{"result", gameserver_locked()}}) + "\n"; }

    /// The GameServer changed: a new resource version, a watch line, watchers woken.
    void changed_locked() {
        ++resource_version;
        ++changes;
        history.emplace_back(changes, watch_line_locked());
        while (history.size() > history_limit) history.pop_front();
        cv.notify_all();
    }

    /// SDK calls cannot leave Unhealthy or Shutdown; true when the state changed.
    bool set_state_locked(const std::string &s) {
        if (terminal(state) || state == s) return false;
        state = s;
        changed_locked();
        return true;
    }

    void stamp_allocation_locked() {
        using namespace std::chrono;
        const auto wall =
            static_cast<std::int64_t>(duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count());
        last_allocated_ns = std::max(wall, last_allocated_ns + 1); // never the previous value
        annotations[last_allocated_key] = rfc3339_nano(last_allocated_ns);
    }

    bool allocate() {
        {
            std::lock_guard lock{mu};
            if (state != "Ready" && state != "Reserved" && state != "Allocated") return false;
            state = "Allocated";
            reserve_deadline_ms.reset();
            stamp_allocation_locked();
            if (const auto it = counters.find("rooms"); it != counters.end())
                it->second.first = std::clamp<std::int64_t>(it->second.first + 1, 0, it->second.second);
            changed_locked();
        }
        log("agones stand-in: allocated");
        return true;
    }

    void tick() {
        std::vector<std::string> events;
        {
            std::lock_guard lock{mu};
            if (!listening || stopping) return;
            const auto t = now();
            if (reserve_deadline_ms && t >= *reserve_deadline_ms) {
                reserve_deadline_ms.reset();
                if (state == "Reserved") { // the sidecar calls Ready itself
                    feats.emplace_back("ready");
                    set_state_locked("Ready");
                    events.emplace_back("agones stand-in: the reservation ended; Ready");
                }
            }
            if (!opt.health_disabled) {
                while (!terminal(state) && next_check_ms <= t) {
                    const auto check = next_check_ms;
                    next_check_ms += period_ms();
                    if (last_ping_ms && *last_ping_ms + period_ms() > check) continue; // a ping in the last period
                    ++failures;
                    if (failures >= opt.failure_threshold) {
                        set_state_locked("Unhealthy");
                        events.emplace_back("agones stand-in: " + std::to_string(failures) +
                                            " health checks failed in a row; Unhealthy");
                    }
                }
            }
        }
        for (const auto &e : events) log(e);
    }

    // ---------------------------------------------------------------- requests

    void record(const httplib::Request &req, const std::string &body, int status) {
        {
            std::lock_guard lock{mu};
            reqs.push_back({now(), req.method, req.path, body, status});
        }
        // The method and target are the client's: escaped like the body (docs/hosting.md, "Logs").
        std::string line = retcon::internal::printable(req.method + " " + (req.target.empty() ? req.path : req.target),
                                                       retcon::internal::printable_for::line) +
                           " " + std::to_string(status);
        if (!body.empty()) line += " " + one_line(body);
        log(line);
    }

    void serve(const httplib::Request &req, const std::string &body, httplib::Response &res) {
        answered_by_route = true;
        try {
            route(req, body, res);
        } catch (const std::exception &e) {
            reply_error(res, 500, unknown, std::string{"internal error: "} + e.what());
        }
        record(req, body, res.status);
    }

    /// A request that may carry a body. Read only when it declares one: without
    /// Content-Length or chunked encoding a request has no body (the library would wait for
    /// the connection to close instead).
    void serve_with_body(const httplib::Request &req, httplib::Response &res, const httplib::ContentReader &reader) {
        std::string body;
        const bool declared = req.has_header("Content-Length") || req.has_header("Transfer-Encoding");
        if (declared && !reader([&](const char *data, std::size_t n) {
                if (body.size() + n > max_body) return false;
                body.append(data, n);
                return true;
            })) {
            answered_by_route = true;
            const int status = res.status == 413 || body.size() >= max_body ? 413 : 400;
            reply_error(res, status, invalid_argument,
                        status == 413 ? "the body is too large" : "the body could not be read");
            record(req, body, res.status);
            return;
        }
        serve(req, body, res);
    }

    void route(const httplib::Request &req, const std::string &raw_body, httplib::Response &res) {
        const auto t = parse_target(req.path);
        if (t.e == endpoint::none) return reply_error(res, 404, not_found, "Not Found");
        if (!method_allowed(t.e, req.method)) return reply_error(res, 501, unimplemented, "Method Not Allowed");
        if (t.e == endpoint::health) return health(raw_body, res);
        body_fields body{raw_body};
        if (!body.ok()) return reply_error(res, 400, invalid_argument, body.error);
        switch (t.e) {
        case endpoint::ready: {
            std::lock_guard lock{mu};
            feats.emplace_back("ready");
            if (!terminal(state)) reserve_deadline_ms.reset();
            set_state_locked("Ready");
            return reply_json(res, ojson::object());
        }
        case endpoint::allocate: {
            std::lock_guard lock{mu};
            feats.emplace_back("allocate");
            if (!terminal(state)) {
                reserve_deadline_ms.reset();
                state = "Allocated";
                stamp_allocation_locked(); // the annotation changes even when already Allocated
                changed_locked();
            }
            return reply_json(res, ojson::object());
        }
        case endpoint::shutdown: {
            std::lock_guard lock{mu};
            feats.emplace_back("shutdown");
            if (!terminal(state)) reserve_deadline_ms.reset();
            set_state_locked("Shutdown");
            return reply_json(res, ojson::object());
        }
        case endpoint::reserve: {
            const auto seconds = body.int64_field("seconds").value_or(0);
            if (!body.ok()) return reply_error(res, 400, invalid_argument, body.error);
            std::lock_guard lock{mu};
            feats.emplace_back("reserve");
            if (!terminal(state)) {
                // 0 (or less) is forever; a huge value saturates.
                constexpr std::int64_t max_s = std::numeric_limits<std::int64_t>::max() / 2000;
                if (seconds > 0)
                    reserve_deadline_ms = now() + static_cast<std::uint64_t>(std::min(seconds, max_s)) * 1000;
                else
                    reserve_deadline_ms.reset();
                set_state_locked("Reserved");
            }
            return reply_json(res, ojson::object());
        }
        case endpoint::gameserver: {
            std::lock_guard lock{mu};
            feats.emplace_back("gameserver");
            return reply_json(res, gameserver_locked());
        }
        case endpoint::watch: return watch(res);
        case endpoint::label:
        case endpoint::annotation: return metadata(t.e == endpoint::label, body, res);
        case endpoint::counter: return req.method == "GET" ? get_counter(t.arg, res) : update_counter(t.arg, body, res);
        case endpoint::list:
        case endpoint::list_add:
        case endpoint::list_remove: return reply_error(res, 500, unknown, "list not found: " + t.arg);
        case endpoint::player_connect:
        case endpoint::player_disconnect:
        case endpoint::player_capacity:
        case endpoint::player_count:
        case endpoint::player_connected: return reply_error(res, 500, unknown, "PlayerTracking not enabled");
        case endpoint::test_allocate: {
            if (allocate()) return reply_json(res, ojson::object());
            return reply_error(res, 409, aborted, "not allocatable: the GameServer is " + state_now());
        }
        case endpoint::test_state: return reply_json(res, test_state());
        case endpoint::test_restart: return test_restart(req, res);
        default: return reply_error(res, 404, not_found, "Not Found");
        }
    }

    std::string state_now() const {
        std::lock_guard lock{mu};
        return state;
    }

    /// POST /health: every JSON object in the body is one ping; no body at all is a 400.
    void health(const std::string &raw_body, httplib::Response &res) {
        if (raw_body.empty()) { // the gateway's wrapper answers with the status alone
            res.status = 400;
            return;
        }
        std::string_view rest;
        const auto values = json_sequence(raw_body, rest);
        std::string error;
        for (const auto v : values) {
            const auto j = json::parse(v, nullptr, false);
            if (j.is_discarded() || !(j.is_object() || j.is_null())) {
                error = "proto: syntax error: a health ping must be a JSON object";
                break;
            }
            std::lock_guard lock{mu};
            ++pings;
            feats.emplace_back("health");
            last_ping_ms = now();
            failures = 0;
        }
        if (error.empty() && !rest.empty()) error = "proto: syntax error: unexpected end of JSON input";
        if (!error.empty()) return reply_error(res, 400, invalid_argument, error);
        reply_json(res, ojson::object());
    }

    void metadata(bool label, body_fields &body, httplib::Response &res) {
        const auto key = body.string_field("key").value_or("");
        const auto value = body.string_field("value").value_or("");
        if (!body.ok()) return reply_error(res, 400, invalid_argument, body.error);
        const char *what = label ? "label" : "annotation";
        if (auto problems = key_problems(key); !problems.empty())
            return reply_error(res, 400, invalid_argument,
                               std::string{"invalid "} + what + " key \"" + key + "\": " + problems);
        if (label)
            if (auto problems = label_value_problems(value); !problems.empty())
                return reply_error(res, 400, invalid_argument,
                                   "invalid label value \"" + value + "\" for key \"" + key + "\": " + problems);
        std::lock_guard lock{mu};
        feats.emplace_back(label ? "setlabel" : "setannotation");
        auto &map = label ? labels : annotations;
        const auto stored = std::string{sdk_prefix} + key;
        if (auto it = map.find(stored); it == map.end() || it->second != value) {
            map[stored] = value;
            changed_locked();
        }
        reply_json(res, ojson::object());
    }

    static ojson counter_json(const std::string &name, std::int64_t count, std::int64_t capacity) {
        return ojson{{"name", name}, {"count", std::to_string(count)}, {"capacity", std::to_string(capacity)}};
    }

    void get_counter(const std::string &name, httplib::Response &res) {
        std::lock_guard lock{mu};
        feats.emplace_back("getcounter");
        const auto it = counters.find(name);
        if (it == counters.end()) return reply_error(res, 500, unknown, "counter not found: " + name);
        reply_json(res, counter_json(name, it->second.first, it->second.second));
    }

    /// PATCH a counter: capacity, then a count set, then the diff; any value out of range
    /// refuses the whole request (no clamping), as the sidecar's UpdateCounter does.
    void update_counter(const std::string &name, body_fields &body, httplib::Response &res) {
        const auto count = body.int64_field("count");
        const auto capacity = body.int64_field("capacity");
        const auto diff = body.int64_field("countDiff").value_or(0);
        if (!body.ok()) return reply_error(res, 400, invalid_argument, body.error);
        if (diff == 0 && !count && !capacity)
            return reply_error(res, 500, unknown,
                               "invalid argument. Malformed CounterUpdateRequest: name:\"" + name + "\"");
        std::lock_guard lock{mu};
        const auto it = counters.find(name);
        if (it == counters.end()) return reply_error(res, 500, unknown, "counter not found: " + name);
        std::int64_t c = it->second.first, cap = it->second.second;
        const auto out_of_range = [&](std::int64_t found) {
            reply_error(res, 500, unknown,
                        "out of range. Count must be within range [0,Capacity]. Found Count: " + std::to_string(found) +
                            ", Capacity: " + std::to_string(cap));
        };
        if (capacity) {
            feats.emplace_back("setcapacitycounter");
            if (*capacity < 0)
                return reply_error(res, 500, unknown,
                                   "out of range. Capacity must be greater than or equal to 0. Found Capacity: " +
                                       std::to_string(*capacity));
            cap = *capacity;
        }
        if (count) {
            feats.emplace_back("setcountcounter");
            if (*count < 0 || *count > cap) return out_of_range(*count);
            c = *count;
        }
        if (diff != 0) {
            feats.emplace_back("updatecounter");
            std::int64_t next = 0;
            if (__builtin_add_overflow(c, diff, &next))
                return out_of_range(diff < 0 ? std::numeric_limits<std::int64_t>::min()
                                             : std::numeric_limits<std::int64_t>::max());
            if (next < 0 || next > cap) return out_of_range(next);
            c = next;
        }
        c = std::clamp<std::int64_t>(c, 0, cap); // a capacity below the count lowers it (the sidecar's flush)
        if (std::pair{c, cap} != it->second) {
            it->second = {c, cap};
            changed_locked();
        }
        reply_json(res, counter_json(name, c, cap));
    }

    /// GET /watch/gameserver: the GameServer now, then a line per change, until the listener stops.
    void watch(httplib::Response &res) {
        struct stream {
            std::uint64_t generation = 0;
            std::uint64_t next = 0; // the first change not sent
            std::string first;
        };
        auto st = std::make_shared<stream>();
        {
            std::lock_guard lock{mu};
            if (!listening) return reply_error(res, 503, unavailable, "the sidecar is stopping");
            feats.emplace_back("watch");
            st->generation = generation;
            st->next = changes + 1;
            st->first = watch_line_locked();
        }
        res.status = 200;
        res.set_chunked_content_provider(stream_content_type, [this, st](std::size_t, httplib::DataSink &sink) {
            std::vector<std::string> lines;
            if (!st->first.empty()) {
                lines.push_back(std::move(st->first));
                st->first.clear();
            } else {
                std::unique_lock lock{mu};
                const auto over = [&] { return stopping || !listening || generation != st->generation; };
                cv.wait(lock, [&] { return over() || changes >= st->next; });
                if (over()) return false; // the connection closes, as when the sidecar goes away
                if (history.empty() || history.front().first > st->next) {
                    lines.push_back(watch_line_locked()); // fell behind the history: the latest
                } else {
                    for (const auto &[change, line] : history)
                        if (change >= st->next) lines.push_back(line);
                }
                st->next = changes + 1;
            }
            for (const auto &line : lines)
                if (!sink.write(line.data(), line.size())) return false;
            return true;
        });
    }

    ojson test_state() const {
        std::lock_guard lock{mu};
        ojson counters_j = ojson::object();
        for (const auto &name : counter_order) {
            const auto &[count, capacity] = counters.at(name);
            counters_j[name] = ojson{{"count", count}, {"capacity", capacity}};
        }
        ojson labels_j = ojson::object(), annotations_j = ojson::object();
        for (const auto &[k, v] : labels) labels_j[k] = v;
        for (const auto &[k, v] : annotations) annotations_j[k] = v;
        return ojson{{"state", state},         {"labels", labels_j}, {"annotations", annotations_j},
                     {"counters", counters_j}, {"features", feats},  {"health_pings", pings},
                     {"requests", reqs.size()}};
    }

    void test_restart(const httplib::Request &req, httplib::Response &res) {
        std::uint32_t down = 1000;
        if (req.has_param("down_ms")) {
            const auto s = req.get_param_value("down_ms");
            const auto *end = s.data() + s.size();
            const auto r = std::from_chars(s.data(), end, down);
            if (s.empty() || r.ec != std::errc{} || r.ptr != end || down > max_down_ms)
                return reply_error(res, 400, invalid_argument,
                                   "down_ms must be a whole number of milliseconds up to " +
                                       std::to_string(max_down_ms));
        }
        // Not from this thread: stopping the listener waits for its workers, this one included.
        spawn([this, down] { restart(down); });
        reply_json(res, ojson{{"down_ms", down}});
    }

    // ---------------------------------------------------------------- the listener

    /// Routes, error handler and socket options; @p listen_fd receives the listening socket.
    void configure(httplib::Server &s, const std::shared_ptr<int> &listen_fd) {
        s.new_task_queue = [] { return new httplib::ThreadPool(worker_threads); };
        // SO_REUSEADDR only: the library's default SO_REUSEPORT would let a second process
        // share the port silently instead of failing to bind.
        s.set_socket_options([listen_fd](int sock) {
            int yes = 1;
            setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
            *listen_fd = sock;
        });
        // One request a connection: a restart or a stop never waits for an idle keep-alive.
        s.set_keep_alive_max_count(1);
        s.set_payload_max_length(max_body);
        const auto plain = [this](const httplib::Request &req, httplib::Response &res) { serve(req, req.body, res); };
        const auto with_body = [this](const httplib::Request &req, httplib::Response &res,
                                      const httplib::ContentReader &reader) { serve_with_body(req, res, reader); };
        s.Get(".*", plain);
        s.Options(".*", plain);
        s.Post(".*", with_body);
        s.Put(".*", with_body);
        s.Patch(".*", with_body);
        s.Delete(".*", with_body);
        s.set_error_handler(
            httplib::Server::HandlerWithResponse{[this](const httplib::Request &req, httplib::Response &res) {
                if (answered_by_route) {
                    answered_by_route = false;
                    return httplib::Server::HandlerResponse::Unhandled;
                }
                // Refused before routing: a malformed request, a body over the limit.
                const int code = res.status < 500 ? invalid_argument : unknown;
                const char *reason = res.status == 413   ? "Payload Too Large"
                                     : res.status == 414 ? "URI Too Long"
                                     : res.status == 400 ? "Bad Request"
                                                         : "Refused";
                res.set_content(status_body(code, reason), content_type);
                record(req, req.body, res.status);
                return httplib::Server::HandlerResponse::Handled;
            }});
        s.set_logger([](const httplib::Request &, const httplib::Response &) { answered_by_route = false; });
    }

    /// Binds and starts the listener (life_mu held); the health checker starts over.
    bool start_listening(std::uint16_t want) {
        auto s = std::make_unique<httplib::Server>();
        auto fd = std::make_shared<int>(-1);
        configure(*s, fd);
        int p = -1;
        if (want == 0) p = s->bind_to_any_port(opt.bind);
        else if (s->bind_to_port(opt.bind, want))
            p = want;
        if (p <= 0 || p > 65535) return false;
        // The library listens with a backlog of 5: a burst of connections (watch streams
        // opening together) would lose SYNs and wait a second for the retry. Listening again
        // raises it.
        if (*fd >= 0) ::listen(*fd, SOMAXCONN);
        {
            std::lock_guard lock{mu};
            ++generation;
            listening = true;
            failures = 0;
            // The kubelet's first probe starts the checker, which checks at once, then each period.
            next_check_ms = now() + std::uint64_t{opt.initial_delay_s} * 1000;
        }
        auto done = std::make_shared<std::atomic<bool>>(false);
        auto *raw = s.get();
        std::thread t{[raw, done] {
            raw->listen_after_bind();
            done->store(true);
        }};
        // stop() does nothing until the accept loop runs: wait for it (the socket already
        // listens, so connections queue meanwhile).
        while (!raw->is_running() && !done->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        server = std::move(s);
        listener = std::move(t);
        bound_port.store(static_cast<std::uint16_t>(p));
        cv.notify_all();
        return true;
    }

    /// Stops the listener (life_mu held): watch streams end, then its workers are joined.
    void stop_listening() {
        {
            std::lock_guard lock{mu};
            listening = false;
        }
        cv.notify_all();
        if (server) {
            server->stop();
            if (listener.joinable()) listener.join();
            server.reset();
        }
    }

    template<class F>
    void spawn(F &&f) {
        std::lock_guard lock{threads_mu};
        {
            std::lock_guard state_lock{mu};
            if (stopping) return;
        }
        threads.emplace_back(std::forward<F>(f));
    }

    void restart(std::uint32_t down_ms) {
        std::uint64_t gen = 0;
        {
            std::lock_guard life{life_mu};
            {
                std::lock_guard lock{mu};
                if (stopping) return;
                gen = ++restart_gen;
            }
            cv.notify_all(); // an earlier restart still waiting gives way to this one
            stop_listening();
        }
        log("agones stand-in: restarting; down for " + std::to_string(down_ms) + " ms");
        spawn([this, gen, down_ms] {
            const auto superseded = [&] { return stopping || restart_gen != gen; };
            {
                std::unique_lock lock{mu};
                if (cv.wait_for(lock, std::chrono::milliseconds(down_ms), superseded)) return;
            }
            bool complained = false;
            for (;;) {
                {
                    std::lock_guard life{life_mu};
                    {
                        std::lock_guard lock{mu};
                        if (superseded()) return;
                    }
                    if (server) return;
                    if (start_listening(bound_port.load())) break;
                }
                if (!complained)
                    log("agones stand-in: cannot listen again on " + opt.bind + ":" +
                        std::to_string(bound_port.load()) + "; retrying");
                complained = true;
                std::unique_lock lock{mu};
                if (cv.wait_for(lock, std::chrono::milliseconds(100), superseded)) return;
            }
            log("agones stand-in: listening again on " + opt.bind + ":" + std::to_string(bound_port.load()));
        });
    }

    void timer_loop() {
        for (;;) {
            {
                std::unique_lock lock{mu};
                if (cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return stopping; })) return;
            }
            tick();
        }
    }

    void shut() {
        {
            std::lock_guard lock{mu};
            stopping = true;
        }
        cv.notify_all();
        {
            std::lock_guard life{life_mu};
            stop_listening();
        }
        for (;;) {
            std::vector<std::thread> batch;
            {
                std::lock_guard lock{threads_mu};
                batch.swap(threads);
            }
            if (batch.empty()) break;
            for (auto &t : batch) t.join();
        }
        if (timer.joinable()) timer.join();
    }
};

result<std::unique_ptr<agones_standin>> agones_standin::start(agones_standin_options options) {
    if (!options.health_disabled && options.period_s == 0)
        return {errc::invalid_argument, "agones stand-in: health period_s must be > 0 (or health disabled)"};
    if (!options.health_disabled && options.failure_threshold == 0)
        return {errc::invalid_argument, "agones stand-in: health failure_threshold must be > 0 (or health disabled)"};
    std::set<std::string> seen;
    for (const auto &[name, count, capacity] : options.counters) {
        if (name.empty() || name.find('/') != std::string::npos)
            return {errc::invalid_argument,
                    "agones stand-in: counter name \"" + name + "\" must be non-empty, without '/'"};
        if (!seen.insert(name).second)
            return {errc::invalid_argument, "agones stand-in: counter \"" + name + "\" given twice"};
        if (capacity < 0 || count < 0 || count > capacity)
            return {errc::invalid_argument, "agones stand-in: counter \"" + name +
                                                "\" needs 0 <= count <= capacity (got " + std::to_string(count) + "/" +
                                                std::to_string(capacity) + ")"};
    }

    auto p = std::make_unique<impl>(std::move(options));
    p->uid = random_uid();
    p->creation_s = static_cast<std::int64_t>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    for (const auto &[name, count, capacity] : p->opt.counters) {
        p->counters[name] = {count, capacity};
        p->counter_order.push_back(name);
    }
    {
        std::lock_guard life{p->life_mu};
        if (!p->start_listening(p->opt.port))
            return {errc::io, "agones stand-in: cannot listen on " + p->opt.bind + ":" + std::to_string(p->opt.port) +
                                  " (the port is taken, or the address is not one of this machine's)"};
    }
    if (p->opt.timer_thread) {
        impl *raw = p.get();
        p->timer = std::thread{[raw] { raw->timer_loop(); }};
    }
    return std::unique_ptr<agones_standin>{new agones_standin{std::move(p)}};
}

agones_standin::agones_standin(std::unique_ptr<impl> p) : impl_{std::move(p)} {}

agones_standin::~agones_standin() { impl_->shut(); }

std::uint16_t agones_standin::port() const { return impl_->bound_port.load(); }

std::string agones_standin::state() const { return impl_->state_now(); }

std::map<std::string, std::string> agones_standin::labels() const {
    std::lock_guard lock{impl_->mu};
    return impl_->labels;
}

std::map<std::string, std::string> agones_standin::annotations() const {
    std::lock_guard lock{impl_->mu};
    return impl_->annotations;
}

std::optional<std::pair<std::int64_t, std::int64_t>> agones_standin::counter(const std::string &name) const {
    std::lock_guard lock{impl_->mu};
    const auto it = impl_->counters.find(name);
    if (it == impl_->counters.end()) return std::nullopt;
    return it->second;
}

std::vector<agones_standin::request_record> agones_standin::requests() const {
    std::lock_guard lock{impl_->mu};
    return impl_->reqs;
}

std::vector<std::string> agones_standin::features() const {
    std::lock_guard lock{impl_->mu};
    return impl_->feats;
}

std::uint64_t agones_standin::health_pings() const {
    std::lock_guard lock{impl_->mu};
    return impl_->pings;
}

bool agones_standin::allocate() { return impl_->allocate(); }

void agones_standin::tick() { impl_->tick(); }

void agones_standin::restart(std::uint32_t down_ms) { impl_->restart(down_ms); }

bool agones_standin::wait_for_state(const std::string &state, std::uint32_t timeout_ms) const {
    std::unique_lock lock{impl_->mu};
    return impl_->cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return impl_->state == state; });
}

} // namespace retcon
