#ifndef RETCON_HOST_HPP
#define RETCON_HOST_HPP

// The match host: many matches per process on one port, join tokens, results and metrics
// (docs/hosting.md, docs/join-tokens.md).
#include <retcon/host/host_metrics.hpp>
#include <retcon/host/join_token.hpp>
#include <retcon/host/match_host.hpp>
#include <retcon/host/match_result.hpp>

#endif
