#ifndef RETCON_NET_SRC_MATCH_RECORDING_HPP
#define RETCON_NET_SRC_MATCH_RECORDING_HPP

#include <retcon/ecs/frame.hpp>
#include <retcon/ecs/world.hpp>
#include <retcon/ecs/error.hpp>
#include <retcon/net/trace.hpp>
#include <retcon/snapshot/replay.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <utility>

namespace retcon::internal {

/**
 * @brief The server's recording of its match as a replay (server_options::record_path;
 * docs/net.md, "Recording and ending a match"): created at the first tick with the world before
 * it, a frame added per confirmed frame, finished when the match ends. A failure ends the recording (the file
 * keeps what was written, readable up to its last complete chunk) and is returned once, for the
 * session's `recording_failed` event; the match goes on unrecorded.
 */
class match_recording {
public:
    /// @brief True once `start` was called (whether or not anything is recorded).
    [[nodiscard]] bool started() const noexcept { return started_; }
    /// @brief True while frames are recorded.
    [[nodiscard]] bool recording() const noexcept { return writer_.has_value(); }

    /// @brief Creates the replay at @p path (empty: nothing is recorded) holding @p w as it is
    /// at the start of @p frame, with @p settings.
    result<void> start(const std::filesystem::path &path, const world &w, frame_t frame, replay_settings settings) {
        started_ = true;
        if (path.empty()) return {};
        start_frame_ = frame;
        keyframe_interval_ = settings.keyframe_interval;
        auto writer = replay_writer::create(path, w, frame, std::move(settings));
        if (!writer) return writer.err();
        writer_.emplace(std::move(*writer));
        return {};
    }

    /// @brief Adds a confirmed frame: its inputs @p in, the world @p after it and its hash
    /// @p h. Nothing while not recording. With @p trace, an add that writes a keyframe is a
    /// `keyframe` slice (arg bytes: what the file grew by, the keyframe and the frames chunk
    /// written before it; docs/net.md, "Reading a trace").
    result<void> add(const frame_inputs &in, const world &after, std::uint64_t h, trace_recorder *trace = nullptr) {
        if (!writer_) return {};
        if (trace) return add_traced(in, after, h, *trace);
        auto r = writer_->add_frame(in, after, h);
        if (!r) writer_.reset();
        return r;
    }

    /// @brief Finishes the replay (its index and last chunk). Nothing while not recording.
    result<void> finish() {
        if (!writer_) return {};
        auto r = writer_->finish();
        writer_.reset();
        return r;
    }

private:
    result<void> add_traced(const frame_inputs &in, const world &after, std::uint64_t h, trace_recorder &trace) {
        const std::uint64_t start = trace.now(), size = writer_->bytes_written();
        auto r = writer_->add_frame(in, after, h);
        if (!r) {
            writer_.reset();
            return r;
        }
        // The writer's rule: a keyframe every keyframe_interval frames from the start, none for
        // the state after max_frame (docs/file-format.md).
        const std::uint64_t next = std::uint64_t{in.frame()} + 1u;
        if ((next - start_frame_) % keyframe_interval_ == 0 && next <= max_frame)
            trace.complete(trace_id(trace_name::keyframe), start, trace.now(), trace_track::tick,
                           static_cast<std::int64_t>(writer_->bytes_written() - size));
        return r;
    }

    bool started_ = false;
    frame_t start_frame_ = 0;
    std::uint32_t keyframe_interval_ = 1;
    std::optional<replay_writer> writer_;
};

} // namespace retcon::internal

#endif
