#ifndef RETCON_SNAPSHOT_REPLAY_ENCODER_HPP
#define RETCON_SNAPSHOT_REPLAY_ENCODER_HPP

#include <cstdint>
#include <memory>

namespace retcon {

namespace internal {
class encoder_queue;
} // namespace internal

/// @brief How a replay encoder runs.
struct replay_encoder_options {
    /// @brief Job slots each writer starts with: a keyframe costs its writer one slot until the
    /// encoder has written it. A writer that finds none free does the work on its own thread.
    std::uint32_t slots_per_writer = 2;
    /// @brief Run the thread at the lowest priority (SCHED_IDLE, else nice 19), so it takes only
    /// the time the ticking thread leaves.
    bool low_priority = true;
};

/// @brief What an encoder has done so far.
struct replay_encoder_stats {
    std::uint64_t jobs = 0;      ///< jobs its thread ran
    std::uint64_t overflows = 0; ///< hand-offs that found no free slot (docs/hosting.md, "Threads")
    std::uint64_t encode_ns = 0; ///< CPU time its thread spent running jobs
    std::uint32_t queued = 0;    ///< jobs waiting now
};

/**
 * @brief One thread that compresses and writes the chunks of many replay writers, with one
 * reused zstd context (docs/hosting.md, "Threads").
 *
 * A writer given an encoder (`replay_settings::encoder`) copies what a chunk needs (the buffered
 * frames, the keyframe's image) into one of its own job slots and queues it; the thread writes
 * each writer's jobs in the order they were queued, so the file's bytes are those the writer
 * writes without an encoder. A writer with no free slot does not wait and drops nothing: if the
 * thread is not inside one of its jobs it writes its queued jobs and the new one itself, else it
 * adds a slot. `finish` and `flush` write what the writer has queued before they return. Errors
 * are the writer's: the next `add_frame`, `flush` or `finish` returns the first one.
 *
 * The destructor writes every queued job, then stops the thread.
 */
class replay_encoder {
public:
    explicit replay_encoder(replay_encoder_options options = {});
    ~replay_encoder();
    replay_encoder(const replay_encoder &) = delete;
    replay_encoder &operator=(const replay_encoder &) = delete;

    /// @brief Returns once every job queued before the call has been written.
    void flush();
    /// @brief Counters (any thread).
    [[nodiscard]] replay_encoder_stats stats() const;
    /// @brief The thread's Linux thread id (for /proc/<pid>/task/<tid>), 0 until it started.
    [[nodiscard]] long thread_id() const noexcept;

    /// @brief Internal: the queue writers hand jobs to.
    [[nodiscard]] internal::encoder_queue &queue() noexcept { return *queue_; }

private:
    std::unique_ptr<internal::encoder_queue> queue_;
};

} // namespace retcon

#endif
