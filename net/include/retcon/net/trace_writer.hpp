#ifndef RETCON_NET_TRACE_WRITER_HPP
#define RETCON_NET_TRACE_WRITER_HPP

/// @file trace_writer.hpp
/// @brief Traces written off the ticking thread: copies of a trace_recorder queued to one helper
/// thread that formats and writes them (docs/net.md, "Reading a trace").

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "trace.hpp"

namespace retcon {

/// @brief How many traces a trace_writer holds and whether it starts writing.
struct trace_writer_options {
    /// @brief Traces waiting to be written, at most (at least one). Each holds a full copy of
    /// its recorder's ring (40 bytes a record plus 64 KiB of text); a submit to a full queue is
    /// dropped and counted.
    std::uint32_t queue = 2;
    /// @brief Start paused: traces queue up but none is written until resume() or flush(). For
    /// tests that need a full queue, and for a loop that wants writes only at times it chooses.
    bool paused = false;
};

/// @brief A trace that could not be written (trace_writer::take_failures).
struct trace_write_failure {
    std::filesystem::path path; ///< the file
    std::string why;            ///< the write's error message
};

/**
 * @brief One helper thread that writes traces as Trace Event Format JSON, so the thread that
 * records them never formats or does file I/O (docs/net.md, "Reading a trace").
 *
 * `submit` copies a recorder's records into a free slot of a bounded queue (a copy, no
 * formatting; no allocation once the slot has held that recorder, or after `reserve`) and
 * returns; the thread formats the copy (the same bytes as trace_recorder::json() at the time of
 * the copy) and replaces the file atomically with write_file_atomic. A submit to a full queue
 * is dropped and counted, never waited for. A write that fails is counted and kept for
 * `take_failures`: the owner reads it, nothing is lost silently.
 *
 * Thread-safe: any thread may submit, flush and read the counts. The destructor writes every
 * trace still queued (a paused writer too), then joins its thread.
 */
class trace_writer {
public:
    /// @brief Failures kept for take_failures; older ones are only counted.
    static constexpr std::size_t max_failures_kept = 16;

    /// @brief Starts the helper thread; the queue's slots are empty until reserve or submit.
    explicit trace_writer(const trace_writer_options &options = {});
    /// @brief Writes every trace queued (resuming a paused writer), then joins the thread.
    ~trace_writer();
    trace_writer(const trace_writer &) = delete;
    trace_writer &operator=(const trace_writer &) = delete;

    /// @brief Sizes every slot for @p recorder's ring and names, so later submits of it never
    /// allocate (call before the match is warm). Waits for no write; a slot being written is
    /// sized when it is next free.
    void reserve(const trace_recorder &recorder);

    /**
     * @brief Queues a copy of @p recorder's records, to be written to @p path.
     * @return true if queued; false if the queue was full (counted in dropped(); nothing else
     * happens). Allocates only while the slot or its path is smaller than this copy needs.
     */
    bool submit(const trace_recorder &recorder, std::string_view path);

    /// @brief Returns when every trace queued before the call has been written or has failed;
    /// resumes a paused writer.
    void flush();
    /// @brief Stops writing after the trace being written; submits still queue (until full).
    void pause();
    /// @brief Writes again after pause() or `trace_writer_options::paused`.
    void resume();

    /// @brief Traces written so far.
    [[nodiscard]] std::uint64_t written() const;
    /// @brief Traces not queued because the queue was full.
    [[nodiscard]] std::uint64_t dropped() const;
    /// @brief Traces whose write failed.
    [[nodiscard]] std::uint64_t failed() const;
    /// @brief Traces queued and not yet written (the one being written included).
    [[nodiscard]] std::size_t pending() const;

    /// @brief The failures not taken yet, oldest first (at most max_failures_kept; failed()
    /// counts them all), and forgets them.
    [[nodiscard]] std::vector<trace_write_failure> take_failures();

private:
    struct slot {
        trace_snapshot snapshot;
        std::string path;
    };

    void run();

    mutable std::mutex m_;
    std::condition_variable wake_; // the thread: work, resume or stop
    std::condition_variable done_; // flush: a write finished
    std::vector<slot> slots_;
    std::size_t head_ = 0;  // the oldest queued slot
    std::size_t count_ = 0; // slots queued, the one being written included
    bool paused_ = false;
    bool stop_ = false;
    std::uint64_t written_ = 0, dropped_ = 0, failed_ = 0;
    std::vector<trace_write_failure> failures_;
    std::thread thread_; // last: started once the rest exists
};

} // namespace retcon

#endif
