#ifndef RETCON_NET_SERVER_SESSION_HPP
#define RETCON_NET_SERVER_SESSION_HPP

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include <retcon/ecs/world.hpp>
#include <retcon/snapshot/replay.hpp>

#include "events.hpp"
#include "session_config.hpp"
#include "stats.hpp"
#include "step_requests.hpp"
#include "telemetry.hpp"
#include "trace.hpp"
#include "trace_writer.hpp"
#include "transport.hpp"

namespace retcon {

/// @brief What a server_options::admission check decides about one hello.
struct server_admission {
    bool allowed = true;
    wire::reject_reason reason = wire::reject_reason::join_token; ///< sent when refused
    std::string text;                                             ///< why not, for the client (refused only)
    /// @brief The player slot this connection must take (-1: the session chooses). A slot held
    /// by another connection is refused as `full`, unless the same `player_id` holds it (a
    /// stale connection: dropped).
    int slot = -1;
    /// @brief The player's identity (0: none). A reconnect token is honoured only for the slot
    /// and identity it was issued to.
    std::uint64_t player_id = 0;
    /// @brief The player's name as the admission knows it (a join token's signed name): the
    /// session's events and logs use it instead of the self-chosen name in the hello. Unset:
    /// the hello's name.
    std::optional<std::string> name;
    /// @brief A refusal with @p why.
    static server_admission refuse(wire::reject_reason why, std::string text) {
        server_admission a;
        a.allowed = false;
        a.reason = why;
        a.text = std::move(text);
        return a;
    }
};

/// @brief Decides whether a connection whose hello is otherwise valid (version, schema, input
/// layout, content) may join, and where (a match host checks join tokens here: docs/hosting.md).
using admission_fn = std::function<server_admission(peer_id peer, const wire::hello_msg &hello)>;

/// @brief Server-side choices.
struct server_options {
    /// @brief Where both snapshots of a desync are written (`retcon diff` them); empty: not written.
    /// A file that cannot be written is said in the `desync_detected` (or `desync_unverified`)
    /// text after the names (docs/net.md, "Desync forensics").
    std::filesystem::path forensics_dir{};
    /// @name Limits a hostile client meets (docs/net.md, "Security model")
    /// @{
    std::uint32_t max_spectators = 8; ///< spectator places, apart from player slots (0: none)
    /// @brief A connection must complete the handshake (a valid `hello`) within this long, or it
    /// is dropped: a half-open connection never holds a place for long (> 0).
    std::uint32_t hello_timeout_ms = 2000;
    /// @brief A client must acknowledge a snapshot sent to it (join or resync) within this long,
    /// or it is dropped (> 0).
    std::uint32_t load_timeout_ms = 30000;
    std::uint32_t max_packets_per_second = 600; ///< flood limit per client
    std::uint32_t max_uploads_per_client = 2;   ///< desync snapshots accepted per client
    /// @brief An upload may be at most this many times the size of the server's own image
    /// nearest before that frame (a client that diverged a little has an image of about the
    /// same size).
    std::uint32_t upload_size_factor = 4;
    std::uint32_t max_upload_bytes = 16u << 20; ///< absolute size cap of one upload
    /// @brief Bytes all uploads in progress may reserve together; a mismatch that would exceed it
    /// is not verified by an upload.
    std::uint64_t upload_budget_bytes = 32u << 20;
    std::uint32_t upload_timeout_ms = 5000; ///< an upload not complete by then is abandoned (> 0)
    /// @brief At most one resynchronising snapshot per client per this long (claims that arrive
    /// before it is sent stem from the same divergence and are not compared; 0: no limit).
    std::uint32_t resync_interval_ms = 1000;
    /// @brief A player slot whose own uploads contradicted its checksum claims (unreadable, or no
    /// difference from the server's image) more often than this is dropped. Counted per slot,
    /// across reconnects.
    std::uint32_t max_false_claims = 1;
    /// @brief Pairs of desync files written to forensics_dir per match, at most.
    std::uint32_t max_forensic_files = 16;
    /// @brief Ask spectators for checksums too (their desyncs are then verified and resynced
    /// like players'); off, a spectator's checksum is ignored.
    bool verify_spectators = false;
    /// @}
    std::uint32_t history_frames = 256; ///< confirmed frames kept for resending
    /// @brief How many checksum frames back the server can still compare a client's upload
    /// with its own snapshot of that frame (docs/net.md, "Desync forensics"). With
    /// forensic_interval > 1 the reach drops by up to forensic_interval - 1 as the ring turns
    /// (25 to 32 with the defaults), and never passes `history_frames`.
    std::uint32_t forensic_frames = 32;
    /// @brief The server keeps an image of its world every this many checksum frames (> 0), in a
    /// ring of ceil(forensic_frames / forensic_interval) images. A frame between two is rebuilt
    /// when an upload is compared: the image before it is restored into a scratch world and
    /// the confirmed inputs after it simulated again, checked against the recorded hash. The
    /// scratch world has none of the game world's hooks: a step that relies on `on_add` /
    /// `on_remove` hooks needs 1 (an image every checksum frame, nothing rebuilt, a copy of the
    /// world per checksum frame).
    std::uint32_t forensic_interval = 8;
    /// @brief Where the match is recorded as a replay (docs/snapshot.md); empty: not recorded.
    /// The file is created at the first tick with the starting world, every confirmed frame is
    /// added, and `end_match` finishes it. A failure raises `recording_failed` and the match
    /// goes on unrecorded (the file stays readable up to its last complete chunk).
    std::filesystem::path record_path{};
    /// @brief Keyframe spacing, chunking, compression level and metadata of the recording.
    /// `players`, `input_size` and `tick_hz` are ignored: the session_config's are recorded.
    replay_settings record_settings{};
    /// @brief Called for each hello that passed the compatibility checks (empty: everyone may
    /// join; players take the free slot abandoned longest ago).
    admission_fn admission{};
    /// @brief After `end_match`, how long to wait for every client to acknowledge the goodbye
    /// before `finished()` turns true anyway.
    std::uint32_t end_timeout_ms = 2000;
    /// @brief Per-frame telemetry kept, for the ticks and for each player slot
    /// (server_session::telemetry; docs/net.md, "Telemetry").
    telemetry_options telemetry{};
    /// @brief The trace kept of the last ticks (server_session::write_trace; docs/net.md, "Reading a
    /// trace"). Off by default.
    trace_options trace{};
    /**
     * @brief The writer of the flight recorder's dumps: with a trace kept (`trace.records` > 0)
     * and a forensics_dir, each desync, verified or not, writes the trace as
     * `<forensics_dir>/desync-slot<S>-frame<F>-trace.json` (the stem of its forensic files;
     * one of max_forensic_files) through a trace_writer, so the tick never formats or writes
     * (docs/net.md, "Reading a trace"). Null: the session starts its own writer when it needs
     * one and reports its failures as `recording_failed`; a writer given here is shared (a match
     * host's) and its failures are its owner's to read. It must outlive the session.
     */
    trace_writer *flight_writer = nullptr;
};

/// @brief What is wrong with @p options (a timeout or interval that must be positive), or an
/// empty string. server_session reports a problem as misuse; the C API as an error.
[[nodiscard]] std::string server_options_problem(const server_options &options);

/// @brief Called once per confirmed frame with the inputs, the world after it and its hash
/// (for the game's own uses; `server_options::record_path` records a replay without it).
using confirmed_frame_fn = std::function<void(const frame_inputs &inputs, const world &after, hash64 hash)>;

/**
 * @brief The server side: the clock and the authority on inputs.
 *
 * At each frame's deadline it fixes every slot's input — a late or missing input becomes the
 * game's substitution of the player's previous input, flagged as replaced, final — simulates
 * the frame on its own world, and sends the confirmed inputs to every client (redundantly
 * until acknowledged). It compares the world hashes clients report for confirmed frames; on a
 * mismatch it raises `desync_detected`, collects the client's snapshot, writes both for
 * `retcon diff`, names what diverged, and sends the client a fresh snapshot. Late joiners and
 * reconnecting players get a snapshot and play on. Hostile clients (malformed, oversized or
 * out-of-range packets, inputs for another slot, floods) are disconnected; everyone else is
 * unaffected. With `server_options::record_path` set, it records the match as a replay.
 *
 * Nothing blocks: `end_match` only starts the ending, and the host keeps calling `poll`
 * until `finished()` (a host may run many matches on one thread).
 */
class server_session {
public:
    server_session(session_config config, world &w, step_function step, transport &t, server_options options = {});
    ~server_session();
    server_session(const server_session &) = delete;
    server_session &operator=(const server_session &) = delete;

    /// @brief Receives and handles everything that arrived by @p now_ms (the first call starts
    /// the clock).
    void poll(std::uint64_t now_ms);
    /// @brief True when the next frame's deadline has passed.
    [[nodiscard]] bool should_tick(std::uint64_t now_ms) const;
    /// @brief Confirms, simulates and broadcasts the next frame (and records it). Does nothing
    /// once the match is ending; at `max_frame` (828 days at 60 Hz) it ends the match instead,
    /// so frame numbers never wrap (docs/frames.md).
    void tick();
    /// @brief Poll mode: tick() with the frame's step handed to the caller instead of run with
    /// the session's step function (docs/net.md, "Poll mode"). Step the request before calling
    /// anything else on the session. `poll` still uses the step function to rebuild a frame for
    /// desync forensics unless `server_options::forensic_interval` is 1.
    [[nodiscard]] step_requests tick_requests();
    /// @brief Pops the next event; false when there is none.
    bool next_event(session_event &out);
    /// @brief Ends the match without blocking: stops ticking, finishes the recording, and sends
    /// every client a goodbye. `poll` goes on servicing the connections; each client that
    /// acknowledges the goodbye (or disconnects) is then disconnected. Calling it again does
    /// nothing.
    void end_match();
    /// @brief True once the match has ended and every client acknowledged the goodbye, or
    /// `server_options::end_timeout_ms` passed since `end_match` (the rest are disconnected).
    /// The session may then be destroyed.
    [[nodiscard]] bool finished() const noexcept;
    /// @brief True once the match is ending: `end_match` was called, the last frame was reached,
    /// or a step request was abandoned. No frame is simulated after it.
    [[nodiscard]] bool ended() const noexcept;

    /// @brief The next frame to confirm.
    [[nodiscard]] frame_t frame() const noexcept;
    /// @brief Number of occupied player slots.
    [[nodiscard]] int players() const noexcept;
    /// @brief Statistics for the client in @p slot (zeros if empty).
    [[nodiscard]] session_stats client_stats(int slot) const;
    /// @brief Totals over all clients (replaced inputs, desyncs, bytes).
    [[nodiscard]] session_stats totals() const;
    /// @brief Registers a function called after each confirmed frame.
    void on_confirmed(confirmed_frame_fn fn);
    /// @brief True when @p token is the reconnect token of one of this match's slots (a host
    /// routes a returning player to its match with it). Compares in constant time per slot.
    [[nodiscard]] bool knows(const reconnect_token &token) const noexcept;
    /// @brief The identity server_options::admission gave the player of @p slot (0: none).
    [[nodiscard]] std::uint64_t slot_player(int slot) const noexcept;
    /**
     * @brief Copies the telemetry of the last ticks into @p out, oldest first, and returns how
     * many (docs/net.md, "Telemetry"): all that are kept if @p out has room for
     * telemetry_capacity() entries, else the newest `out.size()`. Allocates nothing.
     */
    std::size_t telemetry(std::span<server_frame_telemetry> out) const noexcept;
    /// @brief As telemetry(), what the server measured of player slot @p slot's client on the
    /// last frames (0 for a slot outside the match).
    std::size_t client_telemetry(int slot, std::span<server_client_telemetry> out) const noexcept;
    /// @brief Frames of telemetry kept at most (`server_options::telemetry.frames`; 0: off).
    [[nodiscard]] std::size_t telemetry_capacity() const noexcept;
    /// @brief The session's trace recorder, for a game's own trace_scope slices; null when
    /// `server_options::trace.records` is 0 (docs/net.md, "Reading a trace").
    [[nodiscard]] trace_recorder *trace() noexcept;
    /**
     * @brief Writes the trace kept so far to @p path as Trace Event Format JSON, atomically
     * (docs/net.md, "Reading a trace"). Call it between ticks (from the loop, at exit): it
     * formats every record kept, so it allocates and does file I/O.
     * @return nothing, or `invalid_argument` when the session keeps no trace, or the `io` error.
     */
    [[nodiscard]] result<void> write_trace(const std::filesystem::path &path) const;
    /// @brief The writer the flight recorder's dumps go through (`server_options::flight_writer`
    /// or the session's own); null when it keeps no trace or has no forensics_dir.
    [[nodiscard]] trace_writer *flight_recorder() noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace retcon

#endif
