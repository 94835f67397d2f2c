// Every public settings struct can be written with designated initialisers naming only the
// fields a game changes, under -Wall -Wextra -Werror: a member without a default initialiser
// makes GCC warn "missing initializer for member" for each field left out, which broke -Werror
// builds of docs/net.md's own `{.name = "ada"}` client options. Compiling is the test.
#include <retcon/host/agones.hpp>
#include <retcon/host/join_token.hpp>
#include <retcon/host/match_host.hpp>
#include <retcon/host/orchestrator.hpp>
#include <retcon/net/client_config.hpp>
#include <retcon/net/client_session.hpp>
#include <retcon/net/enet_transport.hpp>
#include <retcon/net/server_session.hpp>
#include <retcon/net/session_config.hpp>
#include <retcon/net/telemetry.hpp>
#include <retcon/net/transport_mux.hpp>
#include <retcon/snapshot/diff.hpp>
#include <retcon/snapshot/file.hpp>
#include <retcon/snapshot/replay.hpp>

namespace retcon::headers_test {

client_options client() { return {.name = "ada"}; }
reconnect_policy reconnect() { return {.attempts = 5}; }
server_options server() { return {.max_spectators = 2}; }
session_config config() { return {.tick_hz = 30}; }
client_config client_side() { return {.content_version = 2}; }
enet_options enet() { return {.max_peers = 64}; }
mux_options mux() { return {.unrouted_timeout_ms = 500}; }
read_limits limits() { return {.max_file_bytes = 1u << 20}; }
replay_settings replay() { return {.players = 4}; }
diff_options diff() { return {.max_entities = 8}; }
host_options host() { return {.port = 0}; }
match_params params() { return {.players = 2}; }
token_verifier_options verifier() { return {.fleet = "eu-1"}; }
agones_options agones() { return {.sdk_port = 9357}; }
serve_options serve() { return {.handle_signals = false}; }
telemetry_options telemetry() { return {.frames = 120}; }
telemetry_clock telemetry_time() { return {.now_us = nullptr}; }
client_options client_telemetry() { return {.telemetry = {.frames = 0}}; }
frame_telemetry frame_entry() { return {.frame = 7}; }
server_frame_telemetry server_frame_entry() { return {.frame = 7}; }
server_client_telemetry server_client_entry() { return {.frame = 7}; }

} // namespace retcon::headers_test
