#ifndef RETCON_HOST_ENVIRONMENT_HPP
#define RETCON_HOST_ENVIRONMENT_HPP

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <retcon/ecs/error.hpp>

#include "orchestrator.hpp"

namespace retcon {

struct host_options;

/// @brief Looks up one environment variable (nullopt: unset). Tests pass a map instead of the
/// process's environment.
using env_lookup = std::function<std::optional<std::string>(const std::string &name)>;

/// @brief The process's own environment (getenv).
[[nodiscard]] env_lookup process_environment();

/// @brief The platform a server process runs under, as its environment shows it. Each has one
/// row in `orchestrators()`.
enum class platform {
    plain,   ///< a VM, a developer's machine, systemd: nothing to tell
    agones,  ///< `AGONES_SDK_HTTP_PORT` is set (the Agones SDK sidecar)
    edgegap, ///< `ARBITRIUM_REQUEST_ID` is set
    hathora, ///< `HATHORA_PROCESS_ID` is set
};

[[nodiscard]] std::string_view to_string(platform p) noexcept;
/// @brief Parses an orchestrator's name ("plain", "agones", "edgegap", "hathora").
[[nodiscard]] std::optional<platform> platform_from_string(std::string_view name) noexcept;
/// @brief Which platform @p env says the process runs under (plain when none).
[[nodiscard]] platform detect_platform(const env_lookup &env);

/// @brief One environment variable the host reads, for docs and for checking deployment
/// manifests against the code.
struct env_variable {
    std::string_view name{};
    std::string_view meaning{};
};

/// @brief Every variable `apply_environment` and the orchestrators read (docs/hosting.md,
/// "Configuration from the environment").
[[nodiscard]] std::span<const env_variable> host_environment_variables() noexcept;

/**
 * @brief One orchestrator the host can run under: its name, how the environment selects it, how
 * it is made, what it does (docs/hosting.md, "Orchestrators").
 *
 * `orchestrators()` is the one list of them: `to_string(platform)`, `platform_from_string`,
 * `detect_platform`, `make_orchestrator`, `host_environment_variables` and demo_server's
 * `--orchestrator`, `--help` and `--print-config` all follow it, and a test checks that
 * docs/hosting.md's table agrees. Adding an orchestrator is its `platform` value, its row and
 * its implementation (with its tests and its row in the docs).
 */
struct orchestrator_descriptor {
    platform id{};
    std::string_view name{}; ///< what `--orchestrator` and the log call it
    /// @brief The variable whose presence (set, not empty) selects it; empty: the fallback
    /// when no other is selected. Rows are tried in order.
    std::string_view selected_by{};
    std::string_view help{}; ///< one line: what it tells the platform
    /// @brief Makes it from the environment (an error names a malformed variable).
    result<std::unique_ptr<orchestrator>> (*make)(const env_lookup &env);
    /// @brief The platform's own variables it (or apply_environment) reads.
    std::span<const env_variable> variables{};
};

/// @brief Every orchestrator, in the order `detect_platform` tries them.
[[nodiscard]] std::span<const orchestrator_descriptor> orchestrators() noexcept;
/// @brief The row named @p name (nullptr: none).
[[nodiscard]] const orchestrator_descriptor *find_orchestrator(std::string_view name) noexcept;
/// @brief The row of @p p.
[[nodiscard]] const orchestrator_descriptor &descriptor_of(platform p) noexcept;

/**
 * @brief Overlays the configuration @p env gives onto @p options: the `RETCON_*` variables
 * (port, bind address, matches, match limit, fleet, token keys, replay directory, drain
 * grace, metrics port and address) and the
 * platform's own (Edgegap's internal port for the port named `gameport`, the common `PORT`,
 * Hathora's initial room configuration as the open match's parameters). A variable that is
 * set but malformed is an error naming it, and then nothing is applied; unset ones leave
 * @p options as they are.
 */
[[nodiscard]] result<void> apply_environment(host_options &options, const env_lookup &env);

/// @brief The Agones SDK sidecar's HTTP port: `AGONES_SDK_HTTP_PORT`, else (unset or empty) 9358. A malformed
/// value is an error naming it.
[[nodiscard]] result<std::uint16_t> agones_sdk_port(const env_lookup &env);

/// @brief The orchestrator for @p p: Agones through its SDK sidecar, Edgegap's self-stop call
/// when the host is done (`DELETE $ARBITRIUM_DELETE_URL`), Hathora's exit, or plain. A
/// malformed `AGONES_SDK_HTTP_PORT` is an error.
[[nodiscard]] result<std::unique_ptr<orchestrator>> make_orchestrator(platform p, const env_lookup &env);

} // namespace retcon

#endif
