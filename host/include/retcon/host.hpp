#ifndef RETCON_HOST_HPP
#define RETCON_HOST_HPP

// The match host: many matches per process on one port, join tokens, results and metrics,
// and the orchestrators that run it (docs/hosting.md, docs/join-tokens.md).
#include <retcon/host/agones.hpp>
#include <retcon/host/environment.hpp>
#include <retcon/host/host_metrics.hpp>
#include <retcon/host/join_token.hpp>
#include <retcon/host/match_host.hpp>
#include <retcon/host/match_result.hpp>
#include <retcon/host/orchestrator.hpp>

#endif
