#ifndef RETCON_HOST_ORCHESTRATOR_FACTORIES_HPP
#define RETCON_HOST_ORCHESTRATOR_FACTORIES_HPP

// The orchestrators whose classes are internal, made from the environment; their rows in
// orchestrators() (orchestrators.cpp) name these.
#include <retcon/host/environment.hpp>

namespace retcon {

/// @brief Edgegap: ARBITRIUM_* variables; DELETE $ARBITRIUM_DELETE_URL when the host is done (env_hosts.cpp).
[[nodiscard]] result<std::unique_ptr<orchestrator>> make_edgegap_orchestrator(const env_lookup &env);
/// @brief Hathora: HATHORA_* variables; nothing to call (env_hosts.cpp).
[[nodiscard]] result<std::unique_ptr<orchestrator>> make_hathora_orchestrator(const env_lookup &env);

} // namespace retcon

#endif
