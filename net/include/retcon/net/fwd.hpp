#ifndef RETCON_NET_FWD_HPP
#define RETCON_NET_FWD_HPP

#include <cstdint>

namespace retcon {

struct session_config;
struct client_config;
class frame_inputs;
struct session_event;
struct session_stats;
class transport;
class transport_handler;
struct enet_options;
struct link_conditions;
class sim_network;
struct client_options;
class client_session;
struct server_options;
class server_session;
class sync_test;
class reconnect_token;
struct sync_test_failure;
struct telemetry_options;
struct frame_telemetry;
struct server_frame_telemetry;
struct server_client_telemetry;

} // namespace retcon

#endif
