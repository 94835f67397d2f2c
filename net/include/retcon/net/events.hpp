#ifndef RETCON_NET_EVENTS_HPP
#define RETCON_NET_EVENTS_HPP

#include <cstdint>
#include <string>
#include <vector>

#include <retcon/ecs/frame.hpp>
#include <retcon/net/protocol.hpp>

namespace retcon {

/// @brief What a session tells the game (pulled with `next_event`).
enum class session_event_kind : std::uint8_t {
    connected,    ///< transport connected; handshake under way (client)
    synchronized, ///< world loaded from the server, simulation running (client)
    rejected,     ///< the server refused us; `reject` says why (client)
    player_joined, ///< a slot became present (`slot`, `frame`: server at hello, with `name`; client: in the confirmed stream)
    player_left,         ///< a slot stopped being present (`slot`, `frame`; server: `cause`)
    disconnected,        ///< the connection is gone (client: from the server; server: a client); `cause` says why
    network_interrupted, ///< nothing heard for interrupt_ms
    network_resumed,     ///< heard again after an interruption
    desync_detected,     ///< checksums differed at `frame`; `diverging` names the pools and fields
    resynchronized,      ///< a snapshot from the server replaced the local world (client)
    wait_recommended,    ///< the client is at its prediction window and stalls `count` frames at least (client)
    match_ended,         ///< the server ended the session (client)
    recording_failed, ///< the replay (or a forensic file, or a flight recorder trace) could not be written; `path` and `text` say which and why; the match goes on (server; a client's flight recorder)
    desync_unverified, ///< a client reported a checksum mismatch that no upload verified; `unverified` says why (server)
    connection_refused, ///< connections refused before the handshake (caps, deadlines); at most one a second, `count` of them (server)
    session_failed, ///< a step was not completed (poll mode: requests abandoned, or the C API's step failed); the session has ended, `text` says why
    reconnecting, ///< attempt `count` to connect again starts; `cause`: why the connection or the previous attempt ended (client, docs/net.md "Reconnecting")
    reconnected,  ///< back in the match after `count` attempts: the server's snapshot replaced the world (client)
};

/// @brief The last kind: tables over the kinds (names, the C enum) are checked against it.
inline constexpr session_event_kind last_session_event_kind = session_event_kind::reconnected;

/// @brief Why a connection ended (`disconnected` on both sides, `player_left` on the server).
enum class disconnect_cause : std::uint8_t {
    none = 0,        ///< the event is not about a connection ending
    closed = 1,      ///< the transport ended it (closed by the other side, or ENet unacknowledged for timeout_max_ms)
    timed_out = 2,   ///< nothing heard for `disconnect_ms` (session_config)
    left = 3,        ///< the player said goodbye (server)
    match_ended = 4, ///< the match ended (goodbye acknowledged, or mid-handshake; an unanswered goodbye is `timed_out`)
    rejected = 5,    ///< the hello was refused; `reject` says why
    replaced = 6,    ///< a reconnection with the slot's token took the slot over (server)
    violation = 7,   ///< the peer broke the protocol or a limit (malformed, flood, deadlines); `text` says which
    connect_failed = 8, ///< the transport could not connect, or the server never answered the hello (client)
    bad_snapshot = 9,   ///< the server's snapshot could not be read or loaded (client)
};

/// @brief Why a reported checksum mismatch was not verified (`desync_unverified`, server).
enum class unverified_reason : std::uint8_t {
    none = 0,               ///< the event is not a desync_unverified
    quota = 1,              ///< the client used up its uploads (server_options::max_uploads_per_client)
    snapshot_gone = 2,      ///< the server no longer holds its image of that frame
    budget = 3,             ///< the server-wide upload budget is in use
    upload_timed_out = 4,   ///< the client's snapshot did not arrive within upload_timeout_ms
    unreadable = 5,         ///< the client's upload could not be read (counts against it)
    no_difference = 6,      ///< the upload equals the server's image (counts against it)
    rebuild_failed = 7,     ///< the server could not rebuild its image of that frame
    upload_in_progress = 8, ///< the client's previous upload is still arriving
};

/// @brief One event: the facts as fields, and `text` for logs.
///
/// Decide on the fields; `text` is an English sentence for a log line and may change wording
/// between versions (docs/net.md, "Events").
struct session_event {
    session_event_kind kind = session_event_kind::connected;
    frame_t frame = 0; ///< the frame the event concerns
    int slot = -1;     ///< player slot concerned, -1 if none
    std::string text;  ///< details for a log (reasons, diverging pools and fields)
    /// @brief disconnected / player_left: why the connection ended; reconnecting: why the
    /// connection or the previous attempt ended; reconnected: why the connection was lost
    /// (`none` otherwise).
    disconnect_cause cause = disconnect_cause::none;
    /// @brief rejected, and disconnected with cause `rejected`: the server's reason
    /// (`wire::reject_reason::none` otherwise).
    wire::reject_reason reject = wire::reject_reason::none;
    /// @brief desync_unverified: why no upload verified the mismatch.
    unverified_reason unverified = unverified_reason::none;
    /// @brief wait_recommended: frames to wait at least (how far past the prediction window the
    /// client would be); connection_refused: how many connections this report covers;
    /// reconnecting: the attempt's number (from 1); reconnected: the attempts it took;
    /// disconnected (client): the reconnection attempts made before giving up (0: none).
    std::uint64_t count = 0;
    /// @brief Server: the peer's address ("HOST:PORT", empty on the simulated network) for
    /// player_joined, player_left, disconnected and a connection_refused of one connection.
    std::string address{};
    /// @brief Server: the player's name from its hello (player_joined, player_left, disconnected).
    /// Untrusted: chosen by the client.
    std::string name{};
    /// @brief recording_failed: the file that could not be written.
    std::string path{};
    /// @brief desync_detected: what diverged, one entry each: "pool.field" (the first
    /// differing field of the pool's first differing entity), "pool", "entities", "groups",
    /// "resources" (docs/net.md, "Desync forensics"). Empty when the divergence was not named.
    std::vector<std::string> diverging{};
    /// @brief desync_detected, bisected (docs/net.md, "Desync forensics"): the first stage of
    /// the frame whose result differed — "apply inputs", a system's name, "step" for an opaque
    /// step, or "start of frame" when the world differed before any stage ran. Empty when the
    /// desync was not bisected.
    std::string stage{};
    /// @brief desync_detected: `stage`'s index (0: apply inputs, 1..: the systems), -1 for the
    /// start of the frame or when not bisected.
    int stage_index = -1;
    /// @brief desync_detected: the frame's stages (apply inputs plus one per system; 1 for an
    /// opaque step); 0 when not bisected.
    std::uint32_t stage_count = 0;
};

/// @brief Name of an event kind ("desync_detected", ...).
[[nodiscard]] const char *to_string(session_event_kind kind) noexcept;
/// @brief Name of a disconnect cause ("timed_out", ...; "unknown" for a value that is no cause).
[[nodiscard]] const char *to_string(disconnect_cause cause) noexcept;
/// @brief Name of an unverified reason ("quota", ...; "unknown" for a value that is no reason).
[[nodiscard]] const char *to_string(unverified_reason reason) noexcept;

} // namespace retcon

#endif
