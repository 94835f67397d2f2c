#include <retcon/net/events.hpp>

#include <array>

namespace retcon {

namespace {
// One name per enumerator, in value order; the static_asserts fail when an enumerator is added
// without its name (the C API's enums are checked against these in tests/capi).
constexpr std::array<const char *, 18> kind_names{
    "connected",        "synchronized",        "rejected",         "player_joined",     "player_left",
    "disconnected",     "network_interrupted", "network_resumed",  "desync_detected",   "resynchronized",
    "wait_recommended", "match_ended",         "recording_failed", "desync_unverified", "connection_refused",
    "session_failed",   "reconnecting",        "reconnected",
};
static_assert(kind_names.size() == static_cast<std::size_t>(last_session_event_kind) + 1u,
              "session_event_kind: add the new kind's name to kind_names");

constexpr std::array<const char *, 10> cause_names{
    "none",     "closed",   "timed_out", "left",           "match_ended",
    "rejected", "replaced", "violation", "connect_failed", "bad_snapshot",
};
static_assert(cause_names.size() == static_cast<std::size_t>(disconnect_cause::bad_snapshot) + 1u,
              "disconnect_cause: add the new cause's name to cause_names");

constexpr std::array<const char *, 9> unverified_names{
    "none",          "quota",          "snapshot_gone",      "budget", "upload_timed_out", "unreadable",
    "no_difference", "rebuild_failed", "upload_in_progress",
};
static_assert(unverified_names.size() == static_cast<std::size_t>(unverified_reason::upload_in_progress) + 1u,
              "unverified_reason: add the new reason's name to unverified_names");

template<class Enum, std::size_t N>
const char *name_of(const std::array<const char *, N> &names, Enum e) noexcept {
    const auto i = static_cast<std::size_t>(e);
    return i < N ? names[i] : "unknown";
}
} // namespace

const char *to_string(session_event_kind kind) noexcept { return name_of(kind_names, kind); }
const char *to_string(disconnect_cause cause) noexcept { return name_of(cause_names, cause); }
const char *to_string(unverified_reason reason) noexcept { return name_of(unverified_names, reason); }

} // namespace retcon
