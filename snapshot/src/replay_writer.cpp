// replay_writer: a replay file as a stream of self-checking chunks (docs/file-format.md,
// "Replay files"). The framing is replay_chunk's, the header file_header's and replay_header's,
// the delta keyframes keyframe_delta's; this file decides what to write when.
#include <retcon/snapshot/replay.hpp>
#include <retcon/snapshot/replay_encoder.hpp>

#include <string>
#include <utility>

#include "file_header.hpp"
#include "fs.hpp"
#include "keyframe_delta.hpp"
#include "replay_chunk.hpp"
#include "replay_header.hpp"
#include "replay_sink.hpp"
#include "zstd_codec.hpp"
#include "encoder_queue.hpp"

namespace retcon {

using internal::chunk_kind;

struct replay_writer::impl {
    replay_settings settings;
    std::uint64_t schema_hash = 0;
    std::uint64_t start_frame = 0;
    std::uint64_t next_frame = 0;
    std::uint64_t chunk_first = 0;
    std::uint32_t chunk_frames = 0;
    std::vector<std::byte> frames; // buffered frame records
    // The file side: run here (no encoder), or by the encoder's thread in the order handed off.
    std::shared_ptr<internal::replay_sink> sink;
    internal::encoder_queue *queue = nullptr; // settings.encoder's, if any
    internal::replay_codec codec;             // without an encoder: reused for every chunk
    internal::replay_job job;                 // without an encoder: the one job, reused
    bool finished = false;

    /// A job to fill: without an encoder the writer's own; with one, a free slot (nullptr: none).
    internal::replay_job *acquire() { return queue ? queue->acquire(*sink) : &job; }

    /// Hands @p j off: runs it here without an encoder, else queues it behind the writer's others.
    void hand_off(internal::replay_job &j) {
        if (!queue) sink->run(j, codec);
        else
            queue->submit(sink, j);
    }

    /// Fills a job with the buffered frames (if any) and, with @p keyframe_of, a keyframe of it
    /// at @p frame, and hands it off. With no slot free the writer's thread writes instead of
    /// waiting (encoder_queue::overflow).
    void write(const world *keyframe_of, std::uint64_t frame) {
        internal::replay_job *j = acquire();
        bool here = false;
        if (!j) {
            const auto o = queue->overflow(*sink);
            j = o.job;
            here = o.run_here;
        }
        fill(*j, keyframe_of, frame);
        if (here) queue->run_here(*sink, *j);
        else
            hand_off(*j);
    }

    void fill(internal::replay_job &j, const world *keyframe_of, std::uint64_t frame) {
        if (chunk_frames != 0) {
            std::swap(j.frames, frames); // the slot's cleared buffer comes back: no allocation once warm
            j.chunk_first = chunk_first;
            j.chunk_frames = chunk_frames;
            chunk_frames = 0;
        }
        frames.clear();
        if (keyframe_of) {
            save(*keyframe_of, j.image, frame);
            j.keyframe = true;
        }
    }

    /// Makes the writer's thread the only one touching the file side (waits for the job the
    /// encoder is writing, writes the queued ones here); then any failure so far is known.
    void settle() {
        if (queue) queue->settle(*sink);
    }

    /// Runs @p j on this thread once settled.
    void run_settled(internal::replay_job &j) {
        if (queue) queue->run_here(*sink, j);
        else
            sink->run(j, codec);
    }

    [[nodiscard]] result<void> failure() const {
        if (sink->failed()) return sink->failure();
        return {};
    }
};

replay_writer::replay_writer(std::unique_ptr<impl> p) noexcept : impl_{std::move(p)} {}
replay_writer::replay_writer(replay_writer &&) noexcept = default;
replay_writer &replay_writer::operator=(replay_writer &&) noexcept = default;
replay_writer::~replay_writer() {
    if (!impl_ || impl_->finished || impl_->chunk_frames == 0) return;
    impl_->write(nullptr, 0); // best effort; no index. An encoder writes it after the writer is gone.
}

result<replay_writer> replay_writer::create(const std::filesystem::path &path, const world &start, frame_t start_frame,
                                            replay_settings settings) {
    if (!internal::settings_in_range(settings))
        return error{errc::invalid_argument, path.string() +
                                                 ": replay settings out of range (players 1..256, input_size 1..4096, "
                                                 "intervals >= 1, frames_per_chunk 1..65536)"};
    if (start_frame > max_frame)
        return error{errc::invalid_argument,
                     path.string() + ": start frame beyond the last frame a match can simulate"};
    if (settings.metadata.size() > internal::max_metadata_entries)
        return error{errc::invalid_argument, path.string() + ": too many metadata entries"};
    for (const auto &[k, v] : settings.metadata)
        if (k.size() > internal::max_metadata_text || v.size() > internal::max_metadata_text)
            return error{errc::invalid_argument, path.string() + ": metadata entry '" + k.substr(0, 32) + "' too long"};

    auto p = std::make_unique<impl>();
    p->settings = std::move(settings);
    p->schema_hash = start.schema_hash();
    p->start_frame = start_frame;
    p->next_frame = start_frame;
    p->chunk_first = start_frame;
    p->sink = std::make_shared<internal::replay_sink>(p->settings.level, p->settings.full_keyframe_every,
                                                      p->settings.keyframe_codec);
    if (p->settings.encoder) {
        p->queue = &p->settings.encoder->queue();
        p->queue->add_slots(*p->sink);
    }
    const std::size_t chunk_bytes =
        internal::frame_record_size(p->settings.players, p->settings.input_size) * p->settings.frames_per_chunk;
    p->frames.reserve(chunk_bytes);
    if (p->queue) // pre-sized slots: a hand-off allocates nothing unless the world outgrows its start
        for (auto &slot : p->sink->slots) {
            slot->frames.reserve(chunk_bytes);
            slot->image.prepare(image_size(start));
            slot->image.clear();
        }
    // Creating the file, its header and the starting keyframe, made durable, are one job: with an
    // encoder its thread opens and fsyncs, and an error (the path exists) comes back from the
    // next add_frame, flush or finish.
    internal::replay_job *j = p->acquire();
    j->create_path = path;
    const auto schema_bytes = start.get_schema().serialize();
    const auto meta = internal::encode_metadata(p->settings.metadata);
    const auto fields = internal::encode_replay_fields(p->settings, static_cast<std::uint32_t>(meta.size()));
    internal::write_file_header(j->header, internal::replay_format, start.schema_hash(), start_frame, fields,
                                schema_bytes, meta);
    p->fill(*j, &start, start_frame);
    j->sync = true;
    p->hand_off(*j);
    if (!p->queue)
        if (auto r = p->failure(); !r) return r.err();
    return replay_writer{std::move(p)};
}

result<void> replay_writer::add_frame(const frame_inputs &in, const world &after, std::optional<hash64> known) {
    impl &m = *impl_;
    if (m.finished) return {errc::invalid_argument, "replay_writer: add_frame after finish"};
    if (auto r = m.failure(); !r) return r;
    if (in.players() != m.settings.players || in.input_size() != m.settings.input_size)
        return {errc::invalid_argument,
                "replay_writer: frame " + std::to_string(in.frame()) + " has " + std::to_string(in.players()) +
                    " players of " + std::to_string(in.input_size()) + " input bytes; the replay has " +
                    std::to_string(m.settings.players) + " of " + std::to_string(m.settings.input_size)};
    if (const std::size_t slot = in.first_unknown_flags(); slot != in.players())
        return {errc::invalid_argument, "replay_writer: frame " + std::to_string(in.frame()) +
                                            " has unknown flag bits for slot " + std::to_string(slot)};
    if (in.frame() != m.next_frame || in.frame() > max_frame)
        return {errc::invalid_argument, "replay_writer: frame " + std::to_string(in.frame()) + " given where frame " +
                                            std::to_string(m.next_frame) + " comes next"};
    if (after.schema_hash() != m.schema_hash)
        return {errc::schema_mismatch, "replay_writer: world has another schema than the replay"};
    const hash64 h = known ? *known : hash(after);
    if (m.chunk_frames == 0) m.chunk_first = m.next_frame;
    const auto record = in.record(); // flags then inputs: the file's record layout
    m.frames.insert(m.frames.end(), record.begin(), record.end());
    for (int i = 0; i < 8; ++i) m.frames.push_back(std::byte(static_cast<std::uint8_t>(h >> (8 * i))));
    ++m.chunk_frames;
    ++m.next_frame;
    // No keyframe for the state after max_frame: no match simulates that frame.
    const bool keyframe_due =
        (m.next_frame - m.start_frame) % m.settings.keyframe_interval == 0 && m.next_frame <= max_frame;
    if (m.chunk_frames == m.settings.frames_per_chunk || keyframe_due)
        m.write(keyframe_due ? &after : nullptr, m.next_frame);
    return m.failure(); // without an encoder, this chunk's; with one, an earlier job's
}

result<void> replay_writer::flush() {
    impl &m = *impl_;
    m.settle();
    m.fill(m.job, nullptr, 0);
    m.job.sync = true;
    m.run_settled(m.job);
    return m.failure();
}

result<void> replay_writer::finish() {
    impl &m = *impl_;
    if (m.finished) return {};
    m.settle();
    if (auto r = m.failure(); !r) return r;
    m.fill(m.job, nullptr, 0);
    m.job.index = true;
    m.job.index_frame = m.next_frame;
    m.job.sync = m.job.close = true;
    m.run_settled(m.job);
    if (auto r = m.failure(); !r) return r;
    m.finished = true;
    return {};
}

frame_t replay_writer::next_frame() const noexcept { return static_cast<frame_t>(impl_->next_frame); }
std::uint64_t replay_writer::bytes_written() const noexcept { return impl_->sink->bytes_written(); }

} // namespace retcon
