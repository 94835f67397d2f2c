#ifndef RETCON_NET_EVENTS_HPP
#define RETCON_NET_EVENTS_HPP

#include <cstdint>
#include <string>

#include <retcon/ecs/frame.hpp>

namespace retcon {

/// @brief What a session tells the game (pulled with `next_event`).
enum class session_event_kind : std::uint8_t {
    connected,           ///< transport connected; handshake under way (client)
    synchronized,        ///< world loaded from the server, simulation running (client)
    rejected,            ///< the server refused us; `text` says why (client)
    player_joined,       ///< a slot became present (`slot`, `frame`: server at hello; client: in the confirmed stream)
    player_left,         ///< a slot stopped being present (`slot`, `frame`)
    disconnected,        ///< the connection is gone (client: from the server; server: a client)
    network_interrupted, ///< nothing heard for interrupt_ms
    network_resumed,     ///< heard again after an interruption
    desync_detected,     ///< checksums differed at `frame`; `text` names the diverging pools
    resynchronized,      ///< a snapshot from the server replaced the local world (client)
    wait_recommended,    ///< the client is at its prediction window and stalls (client)
    match_ended,         ///< the server ended the session (client)
    recording_failed, ///< the replay could not be written; `text`: path and reason; the match goes on unrecorded (server)
    desync_unverified, ///< a client reported a checksum mismatch that no upload verified; `text` says why (server)
    connection_refused, ///< connections refused before the handshake (caps, deadlines); at most one a second, `text` counts the rest (server)
    session_failed, ///< a step was not completed (poll mode: requests abandoned, or the C API's step failed); the session has ended, `text` says why
};

/// @brief One event.
struct session_event {
    session_event_kind kind = session_event_kind::connected;
    frame_t frame = 0; ///< the frame the event concerns
    int slot = -1;     ///< player slot concerned, -1 if none
    std::string text;  ///< details (reasons, diverging pools and fields)
};

/// @brief Name of an event kind ("desync_detected", ...).
[[nodiscard]] const char *to_string(session_event_kind kind) noexcept;

} // namespace retcon

#endif
