// The one list of orchestrators (docs/hosting.md, "Orchestrators"): everything that names them
// reads this table, and tests/host/orchestrators.cpp checks its mirrors (the docs' table,
// demo_server's --help and --print-config).
#include <retcon/host/agones.hpp>
#include <retcon/host/environment.hpp>

#include <array>

#include "orchestrator_factories.hpp"

namespace retcon {

namespace {

using made = result<std::unique_ptr<orchestrator>>;

made make_plain(const env_lookup &) { return made{make_plain_orchestrator()}; }

made make_agones(const env_lookup &env) {
    const auto port = agones_sdk_port(env);
    if (!port) return made{port.err()};
    agones_options o;
    o.sdk_port = *port;
    return made{std::make_unique<agones_orchestrator>(std::move(o))};
}

constexpr std::array<env_variable, 1> agones_variables{{
    {"AGONES_SDK_HTTP_PORT", "the Agones SDK sidecar's HTTP port (its presence selects Agones)"},
}};

constexpr std::array<env_variable, 6> edgegap_variables{{
    {"ARBITRIUM_REQUEST_ID", "Edgegap's deployment id (its presence selects Edgegap)"},
    {"ARBITRIUM_PORT_GAMEPORT_INTERNAL", "Edgegap: the container port of the port named 'gameport'"},
    {"ARBITRIUM_DELETE_URL", "Edgegap: the self-stop URL, called with DELETE when the host is done"},
    {"ARBITRIUM_DELETE_TOKEN", "Edgegap: the self-stop call's Authorization header"},
    {"ARBITRIUM_PUBLIC_IP", "Edgegap: the public address (logged)"},
    {"ARBITRIUM_PORT_GAMEPORT_EXTERNAL", "Edgegap: the public port of 'gameport' (logged)"},
}};

constexpr std::array<env_variable, 5> hathora_variables{{
    {"HATHORA_PROCESS_ID", "Hathora's process id (its presence selects Hathora; logged)"},
    {"HATHORA_INITIAL_ROOM_ID", "Hathora: the first room's id (logged)"},
    {"HATHORA_HOSTNAME", "Hathora: the public host name (logged)"},
    {"HATHORA_DEFAULT_PORT", "Hathora: the public port (logged)"},
    {"HATHORA_INITIAL_ROOM_CONFIG",
     "Hathora: the open match's parameters as JSON {\"players\",\"tick_hz\",\"seed\",\"settings\"}"},
}};

// Tried in this order by detect_platform: the first whose variable is set; plain, the fallback, last.
constexpr std::array<orchestrator_descriptor, 4> table{{
    {platform::agones, "agones", "AGONES_SDK_HTTP_PORT",
     "Ready, health, the rooms counter and Shutdown through the Agones SDK sidecar", &make_agones, agones_variables},
    {platform::edgegap, "edgegap", "ARBITRIUM_REQUEST_ID",
     "stops its Edgegap deployment with DELETE $ARBITRIUM_DELETE_URL when the host is done", &make_edgegap_orchestrator,
     edgegap_variables},
    {platform::hathora, "hathora", "HATHORA_PROCESS_ID",
     "the initial Hathora room's configuration; the process exits when done", &make_hathora_orchestrator,
     hathora_variables},
    {platform::plain, "plain", "", "nothing to tell (a VM under systemd, a developer's machine)", &make_plain, {}},
}};

} // namespace

std::span<const orchestrator_descriptor> orchestrators() noexcept { return table; }

const orchestrator_descriptor *find_orchestrator(std::string_view name) noexcept {
    for (const auto &d : table)
        if (d.name == name) return &d;
    return nullptr;
}

const orchestrator_descriptor &descriptor_of(platform p) noexcept {
    for (const auto &d : table)
        if (d.id == p) return d;
    return table.back(); // every platform has a row (tests/host/orchestrators.cpp)
}

std::string_view to_string(platform p) noexcept { return descriptor_of(p).name; }

std::optional<platform> platform_from_string(std::string_view name) noexcept {
    if (const auto *d = find_orchestrator(name)) return d->id;
    return std::nullopt;
}

platform detect_platform(const env_lookup &env) {
    for (const auto &d : table) {
        if (d.selected_by.empty()) return d.id;
        const auto v = env(std::string{d.selected_by});
        if (v && !v->empty()) return d.id;
    }
    return platform::plain;
}

result<std::unique_ptr<orchestrator>> make_orchestrator(platform p, const env_lookup &env) {
    return descriptor_of(p).make(env);
}

} // namespace retcon
