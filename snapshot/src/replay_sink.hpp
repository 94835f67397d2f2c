#ifndef RETCON_SNAPSHOT_SRC_REPLAY_SINK_HPP
#define RETCON_SNAPSHOT_SRC_REPLAY_SINK_HPP

// The file side of a replay writer (docs/file-format.md, "Replay files"): what turns the
// writer's jobs into chunks in its file. The writer's own thread runs the jobs without an
// encoder; a replay_encoder's thread runs them with one. Internal: never installed.
#include <retcon/snapshot/error.hpp>
#include <retcon/snapshot/image.hpp>
#include <retcon/snapshot/replay.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "fs.hpp"
#include "keyframe_delta.hpp"
#include "keyframe_planes.hpp"
#include "replay_chunk.hpp"
#include "zstd_codec.hpp"

namespace retcon::internal {

class replay_sink;

/**
 * @brief What running a job needs besides the sink's own state: a zstd context and the
 * byte-plane scratch (a few hundred KB for the demo's image). Owned by whoever runs jobs — a
 * writer without an encoder, an encoder's thread, the writers' shared fallback — not by each
 * sink, so the matches an encoder serves share one.
 */
struct replay_codec {
    zstd_codec zstd;
    keyframe_planes planes;
    std::vector<std::byte> transposed{}; ///< a full keyframe's byte planes
    std::vector<std::byte> packed{};     ///< that keyframe compressed, beside a delta's
};

/**
 * @brief What one hand-off asks of the file side, done in this order: create the file and write
 * its header; write the buffered frames as a chunk; write a keyframe of `image`; write the seek
 * index and trailer; fsync; close. A slot keeps its buffers between jobs, so a warm writer hands
 * off without allocating.
 */
struct replay_job {
    std::filesystem::path create_path{}; ///< non-empty: create this file first
    std::vector<std::byte> header{};     ///< written after creating
    std::vector<std::byte> frames{};     ///< frame records of one chunk (may be empty)
    std::uint64_t chunk_first = 0;       ///< the first of those frames
    std::uint32_t chunk_frames = 0;      ///< how many
    bool keyframe = false;               ///< write `image` (tagged with its frame) as a keyframe
    world_image image{};
    bool index = false;            ///< write the seek index and the trailer
    std::uint64_t index_frame = 0; ///< the index chunk's frame field (the writer's next frame)
    bool sync = false;
    bool close = false;

    // The encoder's bookkeeping (under its mutex).
    bool busy = false;                   ///< filled or queued: not the writer's to fill
    replay_job *next = nullptr;          ///< the queue's link
    std::shared_ptr<replay_sink> keep{}; ///< keeps the sink alive while queued

    /// @brief Forgets what was asked (buffers kept).
    void reset() noexcept {
        create_path.clear();
        header.clear();
        frames.clear();
        chunk_first = 0;
        chunk_frames = 0;
        keyframe = false;
        index = false;
        index_frame = 0;
        sync = close = false;
    }
};

/**
 * @brief The file side of one replay writer: its file, the previous keyframe, the delta coder,
 * the seek index and scratch buffers. One thread at a time runs its jobs (the writer's, or the
 * encoder's, which the encoder's queue orders).
 */
class replay_sink {
public:
    replay_sink(int level, std::uint32_t full_keyframe_every, keyframe_codec codec) noexcept
        : level_{level}, full_keyframe_every_{full_keyframe_every}, codec_{codec} {}

    /// @brief Runs @p job with @p codec, then forgets what it asked. After a failure nothing
    /// more is written: every later job is skipped and `failure()` holds the first error.
    void run(replay_job &job, replay_codec &codec);

    /// @brief True once a job failed (any thread; acquire).
    [[nodiscard]] bool failed() const noexcept { return failed_.load(std::memory_order_acquire); }
    /// @brief The first failure. @warning Only once `failed()` was seen true.
    [[nodiscard]] const error &failure() const noexcept { return *failure_; }
    /// @brief Bytes written so far (any thread; the encoder may be behind the writer).
    [[nodiscard]] std::uint64_t bytes_written() const noexcept { return written_.load(std::memory_order_relaxed); }

    // The encoder's bookkeeping (under its mutex).
    std::vector<std::unique_ptr<replay_job>> slots{}; ///< the writer's job slots
    bool running = false;                             ///< the encoder's thread is inside one of its jobs

private:
    result<void> run_steps(replay_job &job, replay_codec &codec);
    result<void> write_chunk(replay_codec &codec, chunk_kind kind, std::uint64_t frame, std::uint32_t count,
                             std::span<const std::byte> payload);
    /// Appends one chunk of @p raw, already compressed into @p compressed.
    result<void> emit_chunk(chunk_kind kind, std::uint64_t frame, std::uint32_t count, std::span<const std::byte> raw,
                            std::span<const std::byte> compressed, std::uint8_t payload_codec);
    /// Writes @p image as the next keyframe: a delta if one is due (@p delta_due) and can be
    /// formed, else full. With keyframe_codec::planes a full keyframe is in byte planes, and is
    /// also written where a delta is due if it compresses smaller than the delta.
    result<void> write_keyframe(replay_codec &codec, const world_image &image, bool delta_due);
    result<void> append(std::span<const std::byte> bytes);

    append_file file_;
    keyframe_delta delta_;              // reused for every delta keyframe
    world_image previous_;              // the last keyframe's image
    std::vector<std::byte> raw_;        // scratch: a delta, the index payload
    std::vector<std::byte> compressed_; // scratch
    std::vector<std::byte> out_;        // scratch: chunk bytes
    std::vector<index_entry> index_;
    std::uint64_t keyframes_ = 0;
    int level_;
    std::uint32_t full_keyframe_every_;
    keyframe_codec codec_;
    std::optional<error> failure_;
    std::atomic<bool> failed_{false};
    std::atomic<std::uint64_t> written_{0};
};

} // namespace retcon::internal

#endif
