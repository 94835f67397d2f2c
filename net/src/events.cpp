#include <retcon/net/events.hpp>

namespace retcon {

const char *to_string(session_event_kind kind) noexcept {
    switch (kind) {
    case session_event_kind::connected: return "connected";
    case session_event_kind::synchronized: return "synchronized";
    case session_event_kind::rejected: return "rejected";
    case session_event_kind::player_joined: return "player_joined";
    case session_event_kind::player_left: return "player_left";
    case session_event_kind::disconnected: return "disconnected";
    case session_event_kind::network_interrupted: return "network_interrupted";
    case session_event_kind::network_resumed: return "network_resumed";
    case session_event_kind::desync_detected: return "desync_detected";
    case session_event_kind::resynchronized: return "resynchronized";
    case session_event_kind::wait_recommended: return "wait_recommended";
    case session_event_kind::match_ended: return "match_ended";
    case session_event_kind::recording_failed: return "recording_failed";
    case session_event_kind::desync_unverified: return "desync_unverified";
    case session_event_kind::connection_refused: return "connection_refused";
    case session_event_kind::session_failed: return "session_failed";
    }
    return "unknown";
}

} // namespace retcon
