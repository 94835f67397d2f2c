// The C API's network sessions: transports, and the step requests both modes share
// (docs/c-api.md, "Sessions"). Private to capi/src.
#ifndef RETCON_CAPI_SESSIONS_HPP
#define RETCON_CAPI_SESSIONS_HPP

#include "handles.hpp"

#include <retcon/net.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

struct rc_sim_network {
    explicit rc_sim_network(std::uint64_t seed) : network{seed} {}
    retcon::sim_network network;
    bool server_taken = false;
    std::uint32_t transports = 0; ///< live rc_transport ends (the network outlives them)
    std::string error;
};

struct rc_transport {
    std::unique_ptr<retcon::transport> owned; ///< ENet; a simulated end belongs to its network
    retcon::transport *transport = nullptr;
    rc_sim_network *network = nullptr; ///< the network of a simulated end
    std::uint32_t sessions = 0;        ///< sessions using it (it outlives them)
    std::string error;
};

namespace retcon::capi {

/// @brief What a server and a client handle share: the world and transport they borrow, the
/// game's step (NULL: poll mode), and the step requests of the update in progress.
///
/// Both modes run the C++ session's `tick_requests`; callback mode steps each request with the
/// game's function inside `update`, poll mode hands it out (`next_request`) and waits for
/// `request_done`. Misuse while a step is outstanding — a call that would change the session
/// from inside the callback, an update before the requests are done, a failed step — abandons the
/// requests: the C++ session ends with `session_failed` carrying the reason.
class session_handle {
public:
    session_handle(rc_world &w, rc_transport &t, rc_step_fn step, void *user) noexcept;
    virtual ~session_handle();
    session_handle(const session_handle &) = delete;
    session_handle &operator=(const session_handle &) = delete;

    std::string error;           ///< the last failed call's message
    session_event event;         ///< the last event handed out: its strings back rc_event's
    std::string event_diverging; ///< its diverging names, one a line

    /// @brief Refuses a call that would change the session while a step is outstanding (ending
    /// the session, since the world is between two frames). RC_OK when no step is outstanding.
    rc_status refuse_inside_step(const char *what);
    /// @brief True (and the session ends when the step returns) if the handle is being destroyed
    /// from inside its own step callback, whose frame is still on the stack: it must be kept.
    bool refuse_destroy(const char *what) noexcept;
    /// @brief Runs the frames due at @p now_ms (after the caller polled the session).
    rc_status run_due(const char *what);
    rc_status next_request(rc_request *out, int *has_request, const char *what);
    rc_status request_done(rc_frame frame, const char *what);
    rc_status request_failed(const char *why, const char *what);
    /// @brief The session's next event into @p out (the fields @p out's struct_size has room
    /// for), its strings kept in `event`.
    rc_status next_event(rc_event *out, int *has_event, const char *what);

    rc_world &world;
    std::uint64_t now = 0;

protected:
    /// @brief Drops the requests in progress (the C++ session then ends, if one was outstanding).
    /// The derived handle's destructor calls it while its C++ session, which owns the requests'
    /// memory, still lives.
    void drop_requests() noexcept {
        current_ = nullptr;
        requests_ = {};
    }
    /// @brief True when the session has a frame due at `now`.
    virtual bool due() = 0;
    /// @brief The requests of one tick.
    virtual step_requests tick() = 0;
    /// @brief Pops the session's next event.
    virtual bool pop_event(session_event &out) = 0;

private:
    /// @brief Callback mode: steps every request until none is due; poll mode: prepares the next.
    rc_status pump(const char *what);
    [[nodiscard]] bool outstanding() const noexcept { return current_ != nullptr; }
    void abandon(std::string why);

    rc_transport &transport_;
    rc_step_fn step_;
    void *user_;
    step_requests requests_;
    const step_request *current_ = nullptr; ///< handed out, not yet stepped
    bool fresh_ = true;                     ///< no tick started in this update yet
    bool in_callback_ = false;
    std::string misuse_; ///< misuse seen inside the callback: ends the session when it returns
};

/// @brief Reads a session_config from its C struct into @p out, or says what is wrong in @p where.
rc_status config_from_c(std::string &where, const rc_session_config *config, bool server_side, const char *what,
                        session_config &out);
/// @brief Copies C++ statistics into their C struct (whose struct_size was checked).
void stats_to_c(const session_stats &in, rc_session_stats *out) noexcept;
/// @brief A step for the C++ session that is never called: the C API steps through requests.
step_function steps_only_through_requests();

} // namespace retcon::capi

#endif
