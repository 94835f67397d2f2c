#ifndef RETCON_NET_CLIENT_SESSION_HPP
#define RETCON_NET_CLIENT_SESSION_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <retcon/ecs/frame.hpp>
#include <retcon/ecs/world.hpp>
#include <retcon/snapshot/fwd.hpp>

#include "client_config.hpp"
#include "events.hpp"
#include "reconnect_token.hpp"
#include "session_config.hpp"
#include "stats.hpp"
#include "step_requests.hpp"
#include "telemetry.hpp"
#include "trace.hpp"
#include "trace_writer.hpp"
#include "transport.hpp"

namespace retcon {

/**
 * @brief Whether and how a client session connects again by itself after losing its connection,
 * presenting the reconnect token its server issued (docs/net.md, "Reconnecting").
 *
 * Only a session that was welcomed reconnects, and only after the link failed: the transport
 * closed (`closed`), the server fell silent (`timed_out`), or an attempt could not connect
 * (`connect_failed`). A refusal, the match's end, a kick for a violation, a bad snapshot or
 * leave() end the session as before. The first attempt starts at once; after each failed one
 * the session waits `backoff_ms`, doubling up to `max_backoff_ms`, counted on the clock given to
 * poll(). Each attempt has `client_options::connect_timeout_ms` to be welcomed.
 */
struct reconnect_policy {
    /// @brief Attempts after each lost connection; 0 (the default): none, the loss raises
    /// `disconnected` at once.
    std::uint32_t attempts = 0;
    /// @brief Wait after the first failed attempt; it doubles after each further one.
    std::uint32_t backoff_ms = 500;
    /// @brief The longest wait between two attempts.
    std::uint32_t max_backoff_ms = 4000;
};

/// @brief Client-side choices that the server does not need to agree with.
struct client_options {
    std::string name = "player";
    bool spectator = false; ///< watch without a slot
    /// @brief From a previous connection's welcome (`client_session::reconnect_token()`), to take
    /// the same slot back after a crash or a lost connection; the server then drops a stale
    /// connection still holding the slot (docs/net.md, "Spectators, late join, reconnect").
    /// Empty: join as a new player.
    retcon::reconnect_token reconnect_token{};
    /// @brief Admission proof from the studio's matchmaker or lobby, sent in the hello (a match
    /// host that admits by token refuses a client without one: docs/join-tokens.md). A client
    /// reconnecting to a host presents the same join token with its reconnect token. Empty: none.
    std::vector<std::byte> join_token{};
    /// @brief How long to wait for the server's welcome, from the first poll; then the session
    /// gives up with `disconnected` "could not connect to HOST:PORT" (docs/session-states.md).
    /// 0: wait for the transport to give up.
    std::uint32_t connect_timeout_ms = 5000;
    /// @brief Automatic reconnection with the session's reconnect token (off by default:
    /// docs/net.md, "Reconnecting").
    reconnect_policy reconnect{};
    /// @brief How much play the client keeps images of for desync forensics (docs/net.md,
    /// "Desync forensics"): the server asks for a frame's image a round trip after the client
    /// kept it, so this must exceed the round trip (500: a few hundred ms to spare). The client
    /// keeps ceil(forensic_ms / tick period / checksum_interval) images, at most 64, their slots
    /// sized when the welcome gives the tick rate; each is a copy of the world (30 at 60 Hz with
    /// checksum_interval 1; docs/net.md gives the demo's memory). 1 to 60,000
    /// (client_options_problem).
    std::uint32_t forensic_ms = 500;
    /// @brief Per-frame telemetry kept (client_session::telemetry; docs/net.md, "Telemetry").
    telemetry_options telemetry{};
    /// @brief The trace kept of the last ticks (client_session::write_trace; docs/net.md, "Reading a
    /// trace"). Off by default.
    trace_options trace{};
    /**
     * @brief The flight recorder: on a desync (`desync_detected`), a resynchronization
     * (`resynchronized`) or the start of a stall (`wait_recommended`) the trace kept is written
     * here as `flight-<frame, 10 digits>-<desync|resync|stall>.json`, by a helper thread
     * (trace_writer), so the tick never formats or writes (docs/net.md, "Reading a trace").
     * At most 8 dumps a session, and a stall's at most one per 5 s of session time. Needs the
     * trace: with `trace.records` 0 the session keeps flight_recorder_records (640 KiB). The
     * directory must exist; a dump that cannot be written is reported as `recording_failed`.
     * Empty: off.
     */
    std::filesystem::path flight_recorder_dir{};
    /**
     * @brief The writer the flight recorder's dumps go through. Null: the session starts its own
     * when `flight_recorder_dir` is set and reports its failures as `recording_failed`; a writer
     * given here is shared (several sessions of one process) and its failures are its owner's to
     * read. It must outlive the session.
     */
    trace_writer *flight_writer = nullptr;
};

/// @brief What is wrong with @p options (`forensic_ms` outside 1..60000: milliseconds, and a
/// window of a minute is already capped), or an empty string. client_session reports a problem
/// as misuse.
[[nodiscard]] std::string client_options_problem(const client_options &options);
/// @brief Records a client's flight recorder keeps when `client_options::trace.records` is 0
/// (40 bytes each: 640 KiB, about 40 s of ticks at 60 Hz).
inline constexpr std::uint32_t flight_recorder_records = 16384;
/// @brief Flight recorder dumps a client session writes at most.
inline constexpr std::uint32_t max_flight_dumps = 8;
/// @brief Session time between two flight recorder dumps of stalls, at least.
inline constexpr std::uint32_t flight_stall_spacing_ms = 5000;

/// @brief Where a client session is in its life (docs/session-states.md).
enum class client_state : std::uint8_t { connecting, loading, running, rejected, disconnected };

/**
 * @brief The client side of a match: local prediction, rollback and re-simulation.
 *
 * The game owns the world, the transport and the loop; the session owns no thread:
 *
 * @code
 * retcon::client_session client{retcon::make_client_config<Input>(), world, step, *transport};
 * while (running) {
 *     client.poll(now_ms());
 *     while (client.should_tick(now_ms())) client.tick(read_local_input());
 *     for (retcon::session_event ev; client.next_event(ev);) handle(ev);
 *     draw(world);
 * }
 * @endcode
 *
 * The session needs from its config only what is compiled into the game (input size and
 * layout, content version, schema) plus its local tuning, a client_config: player slots, tick
 * rate and input delay are the server's, adopted from the welcome (players(), tick_hz()).
 *
 * Each tick the session first applies confirmed inputs that arrived: if any differs from what
 * it predicted, it restores the first wrong frame from its snapshot ring and re-simulates to
 * the present. Then it records the local input for `current + input_delay`, saves the world
 * and simulates the current frame with confirmed inputs where it has them and predictions
 * (the game's repeat rule) where it does not. It never runs more than `prediction_window`
 * frames past the confirmed frames: it stalls and raises `wait_recommended` instead. Time sync
 * uses the server's report of how early inputs arrive to run the local clock slightly faster
 * or slower (±3%), jumping once when far off.
 */
class client_session {
public:
    /// @brief A session stepping @p w with @p step over @p t (the three must outlive it).
    client_session(client_config config, world &w, step_function step, transport &t, client_options options = {});
    /// @brief The same with a config the game shares with its server: its match settings
    /// (max_players, tick_hz, input delays) are ignored, since the welcome brings the server's.
    client_session(session_config config, world &w, step_function step, transport &t, client_options options = {});
    ~client_session();
    client_session(const client_session &) = delete;
    client_session &operator=(const client_session &) = delete;

    /// @brief Receives and handles everything that arrived by @p now_ms.
    void poll(std::uint64_t now_ms);
    /// @brief True when the local clock says a frame is due (call tick).
    [[nodiscard]] bool should_tick(std::uint64_t now_ms);
    /// @brief Advances one frame with this player's @p input (input_size bytes). Returns false
    /// if it stalled (prediction window full) or is not running.
    bool tick(std::span<const std::byte> input);
    /// @brief Poll mode: tick() with the steps handed to the caller instead of run with the
    /// session's step function (docs/net.md, "Poll mode"). @p input is copied. Step every request
    /// before calling anything else on the session; result() is what tick() would return.
    [[nodiscard]] step_requests tick_requests(std::span<const std::byte> input);
    /// @brief tick() with a typed input.
    template<class Input>
    bool tick(const Input &input) {
        static_assert(std::is_trivially_copyable_v<Input>);
        return tick(std::span<const std::byte>(reinterpret_cast<const std::byte *>(&input), sizeof(Input)));
    }
    /// @brief Pops the next event; false when there is none.
    bool next_event(session_event &out);
    /// @brief Leaves the match (sends goodbye, disconnects).
    void leave();

    /// @brief Where the session is; while it reconnects: `connecting`, then `loading`.
    [[nodiscard]] client_state state() const noexcept;
    /// @brief True from a lost connection that client_options::reconnect retries until
    /// `reconnected` or the final `disconnected` (docs/net.md, "Reconnecting").
    [[nodiscard]] bool reconnecting() const noexcept;
    [[nodiscard]] const session_stats &stats() const noexcept;
    /// @brief Player slot, or -1 for a spectator / before welcome.
    [[nodiscard]] int slot() const noexcept;
    /// @brief Player slots in the match, as the server's welcome said (0 before it).
    [[nodiscard]] std::size_t players() const noexcept;
    /// @brief The match's simulation rate, as the server's welcome said (0 before it).
    [[nodiscard]] std::uint16_t tick_hz() const noexcept;
    /// @brief The next frame to simulate (the world is at its start).
    [[nodiscard]] frame_t current_frame() const noexcept;
    /// @brief Every frame below this has confirmed inputs.
    [[nodiscard]] frame_t confirmed_frame() const noexcept;
    /// @brief True while the step function is being re-run after a rollback.
    [[nodiscard]] bool is_resimulating() const noexcept;
    /**
     * @brief True when @p slot's input for @p frame is not confirmed yet: the step saw (or
     * will see) a prediction, which a rollback may still replace. For rendering: draw such a
     * player as uncertain. The local player's own input counts as predicted until the server
     * confirms it (the server may substitute it if it arrives late).
     * @warning @p slot must be below players() (misuse otherwise).
     */
    [[nodiscard]] bool is_predicted(frame_t frame, std::size_t slot) const;
    /// @brief The reconnect token the server issued (empty before the welcome, and for a
    /// spectator). Keep it where only this player reads it: presented in
    /// `client_options::reconnect_token`, it takes the slot back.
    [[nodiscard]] retcon::reconnect_token reconnect_token() const noexcept;
    /// @brief World hash after each confirmed frame, as reported to the server (for tests and
    /// tools); calls @p fn(frame, hash) whenever one is computed.
    void on_confirmed_hash(std::function<void(frame_t, hash64)> fn);
    /// @brief Test/debug hook: applies @p corrupt to the world once, before the next frame is
    /// simulated, to exercise desync detection end to end.
    void debug_corrupt(std::function<void(world &)> corrupt);
    /**
     * @brief Copies the telemetry of the last frames into @p out, oldest first, and returns how
     * many (docs/net.md, "Telemetry"): all that are kept if @p out has room for
     * telemetry_capacity() entries, else the newest `out.size()`. Allocates nothing. Recent
     * entries may still change (a frame confirmed, or its hash checked, later).
     */
    std::size_t telemetry(std::span<frame_telemetry> out) const noexcept;
    /// @brief Frames of telemetry kept at most (`client_options::telemetry.frames`; 0: off).
    [[nodiscard]] std::size_t telemetry_capacity() const noexcept;
    /// @brief The session's trace recorder, for a game's own trace_scope slices; null when
    /// `client_options::trace.records` is 0 (docs/net.md, "Reading a trace").
    [[nodiscard]] trace_recorder *trace() noexcept;
    /**
     * @brief Writes the trace kept so far to @p path as Trace Event Format JSON, atomically
     * (docs/net.md, "Reading a trace"). Call it between ticks (from the loop, at exit): it
     * formats every record kept, so it allocates and does file I/O.
     * @return nothing, or `invalid_argument` when the session keeps no trace, or the `io` error.
     */
    [[nodiscard]] result<void> write_trace(const std::filesystem::path &path) const;
    /// @brief The flight recorder's writer (its counts; `flush` to wait for its dumps); null when
    /// `client_options::flight_recorder_dir` is empty (docs/net.md, "Reading a trace").
    [[nodiscard]] trace_writer *flight_recorder() noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace retcon

#endif
