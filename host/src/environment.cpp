#include <retcon/host/environment.hpp>

#include <retcon/host/match_host.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <cstdlib>
#include <system_error>
#include <limits>
#include <vector>

namespace retcon {

namespace {

// The host's own variables; each orchestrator's follow from its row in orchestrators().
constexpr std::array<env_variable, 11> own_variables{{
    {"RETCON_PORT", "UDP port the host listens on (before ARBITRIUM_PORT_GAMEPORT_INTERNAL and PORT)"},
    {"RETCON_BIND", "local address to listen on (empty: all)"},
    {"RETCON_MATCHES", "matches at once (host_options::max_matches; Agones: the rooms counter's capacity)"},
    {"RETCON_MATCH_LIMIT", "matches the process serves in its life, then it drains and exits (0: no limit)"},
    {"RETCON_FLEET", "the fleet join tokens must name"},
    {"RETCON_TOKEN_KEYS", "verify-key files, separated by commas (two during a rotation): token mode"},
    {"RETCON_REPLAY_DIR", "every match's replay as DIR/<match id>.rcr"},
    {"RETCON_DRAIN_GRACE_S", "seconds running matches may go on after SIGTERM"},
    {"RETCON_METRICS_PORT", "serve Prometheus metrics on this TCP port"},
    {"RETCON_METRICS_BIND", "address of the metrics page (default 127.0.0.1; 0.0.0.0 for a scraper in the cluster)"},
    {"PORT", "UDP port, the common convention of environment-only hosts"},
}};

template<class T>
result<void> parse_number(const env_lookup &env, const std::string &name, T &out, T min, T max) {
    const auto v = env(name);
    if (!v) return {};
    T parsed{};
    const auto *end = v->data() + v->size();
    const auto [p, ec] = std::from_chars(v->data(), end, parsed);
    if (v->empty() || ec != std::errc{} || p != end || parsed < min || parsed > max)
        return result<void>{errc::invalid_argument, name + "='" + *v + "': expected a whole number from " +
                                                        std::to_string(min) + " to " + std::to_string(max)};
    out = parsed;
    return {};
}

result<void> parse_seconds_ms(const env_lookup &env, const std::string &name, std::uint32_t &out_ms) {
    const auto v = env(name);
    if (!v) return {};
    double s = -1; // from_chars: the same in every locale, no leading blanks
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), s);
    if (v->empty() || ec != std::errc{} || end != v->data() + v->size() || !(s >= 0) || s > 86400)
        return result<void>{errc::invalid_argument, name + "='" + *v + "': expected seconds from 0 to 86400"};
    out_ms = static_cast<std::uint32_t>(s * 1000.0);
    return {};
}

/// Hathora's initial room configuration as the open match's parameters.
result<void> parse_room_config(const std::string &text, match_params &p) {
    const auto fail = [&](const std::string &why) {
        return result<void>{errc::invalid_argument, "HATHORA_INITIAL_ROOM_CONFIG: " + why};
    };
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return fail("not a JSON object");
    for (const auto &[key, value] : j.items()) {
        if (key == "players") {
            if (!value.is_number_unsigned() || value.get<std::uint64_t>() < 1 || value.get<std::uint64_t>() > 32)
                return fail("\"players\" must be 1 to 32");
            p.players = static_cast<std::uint8_t>(value.get<std::uint64_t>());
        } else if (key == "tick_hz") {
            if (!value.is_number_unsigned() || value.get<std::uint64_t>() < 1 || value.get<std::uint64_t>() > 1000)
                return fail("\"tick_hz\" must be 1 to 1000");
            p.tick_hz = static_cast<std::uint16_t>(value.get<std::uint64_t>());
        } else if (key == "seed") {
            if (!value.is_number_unsigned()) return fail("\"seed\" must be a whole number");
            p.seed = value.get<std::uint64_t>();
        } else if (key == "settings") {
            if (!value.is_string() || value.get<std::string>().size() > 256)
                return fail("\"settings\" must be a string of at most 256 bytes");
            p.settings = value.get<std::string>();
        } else {
            return fail("unknown key \"" + key + "\" (known: players, tick_hz, seed, settings)");
        }
    }
    return {};
}

} // namespace

env_lookup process_environment() {
    return [](const std::string &name) -> std::optional<std::string> {
        if (const char *v = std::getenv(name.c_str())) return std::string{v};
        return std::nullopt;
    };
}

std::span<const env_variable> host_environment_variables() noexcept {
    // Built once (a function-local static is initialised once, thread-safely).
    static const std::vector<env_variable> all = [] {
        std::vector<env_variable> v(own_variables.begin(), own_variables.end());
        for (const auto &d : orchestrators()) v.insert(v.end(), d.variables.begin(), d.variables.end());
        return v;
    }();
    return all;
}

result<std::uint16_t> agones_sdk_port(const env_lookup &env) {
    std::uint16_t port = 9358; // the SDK's documented default
    if (const auto v = env("AGONES_SDK_HTTP_PORT"); !v || v->empty())
        return port; // empty: unset, as detect_platform reads it
    if (auto r = parse_number<std::uint16_t>(env, "AGONES_SDK_HTTP_PORT", port, 1, 65535); !r)
        return result<std::uint16_t>{r.err()};
    return port;
}

result<void> apply_environment(host_options &options, const env_lookup &env) {
    host_options o = options; // all or nothing: a malformed variable leaves options as they were
    // The first port variable set wins: the host's own, then the platform's, then the convention.
    for (const char *name : {"RETCON_PORT", "ARBITRIUM_PORT_GAMEPORT_INTERNAL", "PORT"}) {
        if (!env(name)) continue;
        if (auto r = parse_number<std::uint16_t>(env, name, o.port, 0, 65535); !r) return r;
        break;
    }
    if (auto v = env("RETCON_BIND")) o.bind_host = *v;
    if (auto r = parse_number<std::uint32_t>(env, "RETCON_MATCHES", o.max_matches, 1, max_host_matches); !r) return r;
    if (auto r = parse_number<std::uint32_t>(env, "RETCON_MATCH_LIMIT", o.match_limit, 0,
                                             std::numeric_limits<std::uint32_t>::max());
        !r)
        return r;
    if (auto v = env("RETCON_FLEET")) o.fleet = *v;
    if (auto v = env("RETCON_TOKEN_KEYS")) {
        o.token_keys.clear();
        std::string_view rest = *v;
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            const auto path = rest.substr(0, comma);
            rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
            if (path.empty()) continue;
            auto key = read_verify_key(std::string{path});
            if (!key) return result<void>{errc::invalid_argument, "RETCON_TOKEN_KEYS: " + key.message()};
            o.token_keys.push_back(*key);
        }
        if (o.token_keys.empty())
            return result<void>{errc::invalid_argument, "RETCON_TOKEN_KEYS is set but names no key file"};
    }
    if (auto v = env("RETCON_REPLAY_DIR")) o.replay_dir = *v;
    if (auto r = parse_seconds_ms(env, "RETCON_DRAIN_GRACE_S", o.drain_grace_ms); !r) return r;
    if (env("RETCON_METRICS_PORT")) {
        if (auto r = parse_number<std::uint16_t>(env, "RETCON_METRICS_PORT", o.metrics_port, 0, 65535); !r) return r;
        o.serve_metrics = true;
    }
    if (auto v = env("RETCON_METRICS_BIND")) o.metrics_bind = *v;
    if (auto v = env("HATHORA_INITIAL_ROOM_CONFIG"); v && !v->empty())
        if (auto r = parse_room_config(*v, o.open_params); !r) return r;
    if (o.token_keys.empty() && o.open_matches > o.max_matches) o.open_matches = o.max_matches;
    options = std::move(o);
    return {};
}

} // namespace retcon
