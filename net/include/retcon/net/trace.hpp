#ifndef RETCON_NET_TRACE_HPP
#define RETCON_NET_TRACE_HPP

/// @file trace.hpp
/// @brief Traces anyone can open: a bounded recorder of slices, counters and instants, written
/// as Chrome Trace Event Format JSON for ui.perfetto.dev and chrome://tracing (docs/net.md,
/// "Reading a trace").

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <retcon/ecs/error.hpp>

namespace retcon {

/**
 * @brief The clock a trace is timed with: a plain function pointer and its context, so keeping it
 * allocates nothing and a test can make every timestamp exact (as telemetry_clock).
 */
struct trace_clock {
    /// @brief Nanoseconds on a monotonic clock, given @p context. Null: `std::chrono::steady_clock`
    /// (CLOCK_MONOTONIC on Linux), so traces of two processes on one machine share a timeline.
    std::uint64_t (*now_ns)(void *context) = nullptr;
    void *context = nullptr; ///< passed to now_ns
};

/// @brief Whether a session keeps a trace, how much, and what it times it with.
struct trace_options {
    /// @brief Records kept: the newest ones, the oldest overwritten first; the storage is taken
    /// when the session is constructed. 0: no trace (each hook is one null check, the clock is
    /// never read). A record is 40 bytes; a tick takes about 6, a rollback two more per frame
    /// re-simulated, a structured step one per stage of each frame stepped, a poll that received
    /// packets one plus one per packet (docs/net.md, "Reading a trace").
    std::uint32_t records = 0;
    trace_clock clock{};        ///< what timestamps are read from
    std::string process_name{}; ///< the process track's name; empty: "retcon client" or "retcon server"
    std::uint32_t pid = 0;      ///< the `pid` written; 0: the operating system's process id
};

/// @brief The threads of a trace (`tid` in the JSON): one track each in a viewer.
enum class trace_track : std::uint8_t {
    tick = 1,    ///< the tick and what it does (slices), the session's counters and events
    network = 2, ///< traffic handled in poll
    game = 3,    ///< slices a game adds with trace_scope
};

/// @brief A name's id in a trace_recorder: the built-in trace_name values, then interned names.
using trace_name_id = std::uint16_t;

/// @brief The names the sessions record, known to every recorder (docs/net.md, "Reading a trace").
enum class trace_name : trace_name_id {
    tick,            ///< slice: one tick (arg frame)
    rollback,        ///< slice: restore and re-simulate (args depth, first_wrong)
    resimulate,      ///< slice: one frame simulated again (arg frame)
    step,            ///< slice: the game's step of a frame (arg frame); a structured step's stages inside it
    save,            ///< slice: the world kept at a frame's start (arg frame)
    checksum,        ///< slice: hashes computed for the server to compare
    send,            ///< slice: inputs or frames sent (arg bytes)
    receive,         ///< slice: one packet handled, on the network track (args bytes, kind)
    hash,            ///< slice: the world hashed after a frame (server)
    record,          ///< slice: the frame added to the replay (server)
    confirm,         ///< slice: the frame's inputs confirmed (server, arg replaced)
    stall,           ///< instant: the tick was refused (the prediction window is full)
    rtt_ms,          ///< counter: smoothed round trip
    frames_ahead,    ///< counter: frames ahead of the server
    input_delay,     ///< counter: this player's input delay in frames
    players,         ///< counter: occupied player slots (server)
    bytes_out,       ///< counter: payload bytes the tick sent (server)
    keyframe,        ///< slice: the replay's keyframe written, inside record (server, arg bytes)
    poll,            ///< slice: a poll that received packets, on the network track (arg bytes)
    bytes_in_per_s,  ///< counter: payload bytes received per second (client, session_stats)
    bytes_out_per_s, ///< counter: payload bytes sent per second (client, session_stats)
    event,           ///< the first session event's name; event kind k is `event + k`
};

/// @brief The id of built-in name @p n.
[[nodiscard]] constexpr trace_name_id trace_id(trace_name n) noexcept { return static_cast<trace_name_id>(n); }

namespace internal {
/// The state of a trace, shared by a recorder and its snapshots so one formatter writes both.
struct trace_data {
    enum class phase : std::uint8_t { complete, counter, instant };
    struct record {
        std::uint64_t ts = 0;  // ns
        std::uint64_t dur = 0; // ns (slices)
        std::int64_t a = 0;    // first argument; a counter's value (bits); an instant's text start
        std::int64_t b = 0;    // second argument; an instant's text length
        trace_name_id name = 0;
        phase ph = phase::complete;
        trace_track track = trace_track::tick;
    };
    struct name_entry {
        std::string name, arg_a, arg_b;
    };

    bool injected_clock = false;
    std::string process;
    std::uint32_t pid = 0;
    std::vector<name_entry> names;
    std::vector<record> records;
    std::size_t head = 0;
    bool full = false;
    std::uint64_t overwritten = 0;
    std::vector<char> text;
    std::uint64_t text_end = 0; // bytes of text ever written

    [[nodiscard]] std::size_t size() const noexcept { return full ? records.size() : head; }
    [[nodiscard]] std::string json() const; // trace_json.cpp
    void append_text(std::string &out, const record &r) const;
    /// Copies @p from into this, reusing this one's storage (no allocation once it is as large).
    void assign(const trace_data &from);
};
} // namespace internal

/**
 * @brief A copy of a trace_recorder's records, names and texts, taken by
 * trace_recorder::snapshot_into to be formatted elsewhere (a trace_writer's thread).
 *
 * Its storage is kept between copies: once it has held a copy of a recorder, copying that
 * recorder again allocates nothing.
 */
class trace_snapshot {
public:
    /// @brief An empty snapshot (json() gives a trace with no records).
    trace_snapshot() = default;
    /// @brief Records held.
    [[nodiscard]] std::size_t size() const noexcept { return data_.size(); }
    /// @brief The records held as Trace Event Format JSON: exactly the recorder's json() when the
    /// copy was taken.
    [[nodiscard]] std::string json() const { return data_.json(); }

private:
    friend class trace_recorder;
    internal::trace_data data_;
};

/**
 * @brief The last records of a trace, in storage taken once, and their JSON (docs/net.md,
 * "Reading a trace").
 *
 * Recording (`complete`, `counter`, `instant`) allocates nothing and does no I/O: records are fixed
 * size in a ring, names are ids, and event texts go to a fixed text ring. When the ring is full
 * the oldest records are overwritten and counted. Slices are recorded when they end, so a slice
 * whose start is overwritten never exists half.
 *
 * Writing (`json`, `write_json`) formats what is kept on the calling thread: it allocates and,
 * for a file, does I/O. To write from another thread, copy the records (`snapshot_into`, a copy
 * into storage kept between calls) and hand them to a trace_writer (`trace_writer::submit`).
 */
class trace_recorder {
public:
    /// @brief Bytes of event text kept; older texts read "(overwritten)".
    static constexpr std::size_t text_capacity = 64 * 1024;
    /// @brief An instant's text is cut to this many bytes (texts may carry what peers sent).
    static constexpr std::size_t max_text = 512;

    /// @brief Takes the storage for `options.records` records (at least one).
    explicit trace_recorder(const trace_options &options);

    /// @brief Nanoseconds on the recorder's clock.
    [[nodiscard]] std::uint64_t now() const noexcept;

    /**
     * @brief The id of @p name (copied), with the names of a slice's two arguments (empty: not
     * written). Allocates: call before the match is warm. The same name gives the same id.
     * @return the id, or the last id when 65,535 names are already known.
     */
    trace_name_id intern(std::string_view name, std::string_view arg_a = {}, std::string_view arg_b = {});
    /// @brief The text of name @p id ("?" if unknown).
    [[nodiscard]] std::string_view name(trace_name_id id) const noexcept;

    /// @brief A slice from @p start to @p end (ns on this clock) on @p track, with two arguments.
    void complete(trace_name_id name, std::uint64_t start, std::uint64_t end, trace_track track = trace_track::tick,
                  std::int64_t a = 0, std::int64_t b = 0) noexcept;
    /// @brief A counter's value now; a value that is not finite is not kept.
    void counter(trace_name_id name, double value) noexcept;
    /// @brief A process-wide instant now, with @p text (cut to max_text bytes).
    void instant(trace_name_id name, std::string_view text = {}) noexcept;

    /// @brief Records kept now.
    [[nodiscard]] std::size_t size() const noexcept { return data_.size(); }
    /// @brief Records kept at most.
    [[nodiscard]] std::size_t capacity() const noexcept { return data_.records.size(); }
    /// @brief Records overwritten since construction (the ring was full).
    [[nodiscard]] std::uint64_t overwritten() const noexcept { return data_.overwritten; }

    /**
     * @brief Copies the records, names and texts kept into @p out, whose json() then equals this
     * json(). A copy of the ring as it is (no formatting); allocates only while @p out is smaller
     * than this recorder (its first copy, or names interned since), so a pre-sized snapshot makes
     * it safe on the ticking thread.
     */
    void snapshot_into(trace_snapshot &out) const { out.data_.assign(data_); }

    /// @brief The records kept, oldest first, as Trace Event Format JSON (object form).
    [[nodiscard]] std::string json() const { return data_.json(); }
    /// @brief Writes json() to @p path atomically. Errors: the file cannot be written.
    [[nodiscard]] result<void> write_json(const std::filesystem::path &path) const;

private:
    using record = internal::trace_data::record;
    using phase = internal::trace_data::phase;

    void push(const record &r) noexcept;

    trace_clock clock_;
    internal::trace_data data_;
};

/**
 * @brief A slice a game adds around its own code, on the game track (docs/net.md, "Reading a
 * trace"). A null recorder makes it a no-op.
 *
 * @code
 * const retcon::trace_name_id physics = client.trace() ? client.trace()->intern("physics") : 0;
 * { retcon::trace_scope s{client.trace(), physics}; run_physics(); }
 * @endcode
 */
class trace_scope {
public:
    /// @brief Starts slice @p name on @p recorder (null: nothing happens).
    trace_scope(trace_recorder *recorder, trace_name_id name) noexcept
        : r_{recorder}, name_{name}, start_{recorder ? recorder->now() : 0} {}
    trace_scope(const trace_scope &) = delete;
    trace_scope &operator=(const trace_scope &) = delete;
    /// @brief Ends the slice.
    ~trace_scope() {
        if (r_) r_->complete(name_, start_, r_->now(), trace_track::game);
    }

private:
    trace_recorder *r_;
    trace_name_id name_;
    std::uint64_t start_;
};

} // namespace retcon

#endif
