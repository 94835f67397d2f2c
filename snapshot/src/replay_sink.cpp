// replay_sink: the file side of a replay writer. The chunks it writes, and their order, are the
// writer's whichever thread runs them (docs/file-format.md, "Replay files").
#include "replay_sink.hpp"

#include <utility>

namespace retcon::internal {

void replay_sink::run(replay_job &job, replay_codec &codec) {
    if (!failed()) {
        if (auto r = run_steps(job, codec); !r) {
            failure_ = r.err();
            failed_.store(true, std::memory_order_release);
        }
    }
    job.reset();
}

result<void> replay_sink::append(std::span<const std::byte> bytes) {
    auto r = file_.append(bytes);
    written_.store(file_.size(), std::memory_order_relaxed);
    return r;
}

result<void> replay_sink::write_chunk(replay_codec &codec, chunk_kind kind, std::uint64_t frame, std::uint32_t count,
                                      std::span<const std::byte> payload) {
    codec.zstd.compress(payload, level_, compressed_);
    return emit_chunk(kind, frame, count, payload, compressed_, 0);
}

result<void> replay_sink::emit_chunk(chunk_kind kind, std::uint64_t frame, std::uint32_t count,
                                     std::span<const std::byte> raw, std::span<const std::byte> compressed,
                                     std::uint8_t payload_codec) {
    encode_chunk(out_, kind, frame, count, raw, compressed, payload_codec);
    index_.push_back(index_entry{kind, frame, file_.size()});
    return append(out_); // one write per chunk: a crash leaves at most one partial chunk
}

result<void> replay_sink::write_keyframe(replay_codec &codec, const world_image &image, bool delta_due) {
    const auto bytes = image.bytes();
    const std::uint64_t frame = image.frame();
    const bool delta = delta_due && delta_.encode(bytes, previous_.bytes(), raw_);
    if (delta) codec.zstd.compress(raw_, level_, compressed_);
    // The chunk's raw payload (what its checksum covers) is what zstd compresses: the planes.
    if (codec_ == keyframe_codec::planes && codec.planes.encode(bytes, codec.zstd, codec.transposed)) {
        codec.zstd.compress(codec.transposed, level_, codec.packed);
        // Where much of the world changed between keyframes, a full image is the smaller one.
        if (!delta || codec.packed.size() < compressed_.size())
            return emit_chunk(chunk_kind::full_keyframe, frame, 1, codec.transposed, codec.packed,
                              static_cast<std::uint8_t>(keyframe_codec::planes));
    }
    if (delta) return emit_chunk(chunk_kind::delta_keyframe, frame, 1, raw_, compressed_, 0);
    return write_chunk(codec, chunk_kind::full_keyframe, frame, 1, bytes); // also when no delta can be formed
}

result<void> replay_sink::run_steps(replay_job &job, replay_codec &codec) {
    if (!job.create_path.empty()) {
        if (auto r = file_.open(job.create_path); !r) return r;
        if (auto r = append(job.header); !r) return r;
    }
    if (job.chunk_frames != 0)
        if (auto r = write_chunk(codec, chunk_kind::frames, job.chunk_first, job.chunk_frames, job.frames); !r)
            return r;
    if (job.keyframe) {
        const bool full = keyframes_ % full_keyframe_every_ == 0;
        auto r = write_keyframe(codec, job.image, !full);
        std::swap(previous_, job.image); // the slot keeps the older buffer for its next keyframe
        ++keyframes_;
        if (!r) return r;
    }
    if (job.index) { // the seek index chunk (listing every chunk before it) and the trailer pointing at it
        encode_index(index_, raw_);
        const std::uint64_t index_offset = file_.size();
        if (auto r =
                write_chunk(codec, chunk_kind::index, job.index_frame, static_cast<std::uint32_t>(index_.size()), raw_);
            !r)
            return r;
        index_.pop_back();
        encode_trailer(index_offset, out_);
        if (auto r = append(out_); !r) return r;
    }
    if (job.sync)
        if (auto r = file_.sync(); !r) return r;
    if (job.close) return file_.close();
    return {};
}

} // namespace retcon::internal
