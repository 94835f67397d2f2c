#ifndef RETCON_NET_HPP
#define RETCON_NET_HPP

/// @file net.hpp
/// @brief Umbrella header for retcon::net.

#include <retcon/snapshot.hpp>

#include "net/client_config.hpp"
#include "net/client_session.hpp"
#include "net/enet_transport.hpp"
#include "net/events.hpp"
#include "net/fwd.hpp"
#include "net/protocol.hpp"
#include "net/reconnect_token.hpp"
#include "net/replay_trace.hpp"
#include "net/server_session.hpp"
#include "net/session_config.hpp"
#include "net/sim_network.hpp"
#include "net/stats.hpp"
#include "net/step_requests.hpp"
#include "net/sync_test.hpp"
#include "net/telemetry.hpp"
#include "net/trace.hpp"
#include "net/trace_writer.hpp"
#include "net/transport.hpp"

#endif
