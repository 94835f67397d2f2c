#ifndef RETCON_SNAPSHOT_SRC_ENCODER_QUEUE_HPP
#define RETCON_SNAPSHOT_SRC_ENCODER_QUEUE_HPP

// The queue between replay writers and a replay_encoder's thread (docs/hosting.md, "Threads").
// Internal: never installed.
#include <retcon/snapshot/replay_encoder.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "replay_sink.hpp"
#include "zstd_codec.hpp"

namespace retcon::internal {

/**
 * @brief A FIFO of replay jobs, linked through the writers' own slots (queueing allocates
 * nothing), and the thread that runs them with one zstd context. A sink's jobs run one at a
 * time in the order queued, by the thread or, when its writer takes them back, by the writer.
 */
class encoder_queue {
public:
    explicit encoder_queue(const replay_encoder_options &options);
    ~encoder_queue();
    encoder_queue(const encoder_queue &) = delete;
    encoder_queue &operator=(const encoder_queue &) = delete;

    /// @brief Gives @p sink its first slots (the writer's thread, once).
    void add_slots(replay_sink &sink);
    /// @brief A free slot of @p sink, now the caller's to fill; nullptr if none is free.
    [[nodiscard]] replay_job *acquire(replay_sink &sink);
    /// @brief Queues the filled slot @p job of @p sink behind everything queued.
    void submit(const std::shared_ptr<replay_sink> &sink, replay_job &job);
    /// @brief No slot was free: if the thread is not inside a job of @p sink, runs the sink's
    /// queued jobs here (the caller then runs its own work itself: returns a free slot, not
    /// busy, for it); else adds a slot (returned busy, to fill and submit). Counted as an
    /// overflow either way; never waits.
    struct overflow_slot {
        replay_job *job = nullptr;
        bool run_here = false; ///< the caller runs the job with `run_here` instead of submitting it
    };
    [[nodiscard]] overflow_slot overflow(replay_sink &sink);
    /// @brief Waits for the thread's job of @p sink if it is inside one, then runs the sink's
    /// queued jobs here: afterwards the caller's thread alone touches the sink until it submits.
    void settle(replay_sink &sink);
    /// @brief Runs @p job of @p sink on the caller's thread with the writers' shared context.
    void run_here(replay_sink &sink, replay_job &job);

    void flush();
    [[nodiscard]] replay_encoder_stats stats() const;
    /// @brief Tests: while held the thread starts no job (stopping runs them all anyway).
    void hold(bool held);
    [[nodiscard]] long thread_id() const noexcept { return tid_.load(std::memory_order_relaxed); }

private:
    void loop(bool low_priority);
    /// Unlinks @p sink's queued jobs, in order, into the sink's slots' order list; returns how many.
    void take_back(replay_sink &sink, std::unique_lock<std::mutex> &lock);

    mutable std::mutex mutex_;
    std::condition_variable work_; // a job was queued, or stopping
    std::condition_variable done_; // a job finished
    replay_job *head_ = nullptr;
    replay_job *tail_ = nullptr;
    std::uint32_t queued_ = 0;
    bool stopping_ = false;
    bool held_ = false;
    std::uint32_t slots_per_writer_;
    std::uint64_t jobs_ = 0, overflows_ = 0, encode_ns_ = 0, finished_ = 0, submitted_ = 0;
    replay_codec codec_;    // the thread's
    std::mutex here_mutex_; // writers' threads running jobs themselves share one more context
    replay_codec here_codec_;
    std::atomic<long> tid_{0};
    std::thread thread_;
};

} // namespace retcon::internal

#endif
