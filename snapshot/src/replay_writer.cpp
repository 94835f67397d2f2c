// replay_writer: a replay file as a stream of self-checking chunks (docs/file-format.md,
// "Replay files"). The framing is replay_chunk's, the header file_header's and replay_header's,
// the delta keyframes keyframe_delta's; this file decides what to write when.
#include <retcon/snapshot/replay.hpp>

#include <string>
#include <utility>

#include "file_header.hpp"
#include "fs.hpp"
#include "keyframe_delta.hpp"
#include "replay_chunk.hpp"
#include "replay_header.hpp"
#include "zstd_codec.hpp"

namespace retcon {

using internal::chunk_kind;

struct replay_writer::impl {
    internal::append_file file;
    internal::zstd_codec codec;     // reused for every chunk
    internal::keyframe_delta delta; // reused for every delta keyframe
    replay_settings settings;
    std::uint64_t start_frame = 0;
    std::uint64_t next_frame = 0;
    std::uint64_t chunk_first = 0;
    std::uint32_t chunk_frames = 0;
    std::uint64_t keyframes = 0;
    std::vector<std::byte> frames; // buffered frame records
    world_image previous;          // last keyframe image
    world_image current;
    std::vector<std::byte> raw;        // scratch: a delta, the index payload
    std::vector<std::byte> compressed; // scratch
    std::vector<std::byte> out;        // scratch: chunk bytes
    std::vector<internal::index_entry> index;
    bool finished = false;

    result<void> write_header(const world &start) {
        const auto schema_bytes = start.get_schema().serialize();
        const auto meta = internal::encode_metadata(settings.metadata);
        const auto fields = internal::encode_replay_fields(settings, static_cast<std::uint32_t>(meta.size()));
        std::vector<std::byte> head;
        internal::write_file_header(head, internal::replay_format, start.schema_hash(), start_frame, fields,
                                    schema_bytes, meta);
        return file.append(head);
    }

    result<void> write_chunk(chunk_kind kind, std::uint64_t frame, std::uint32_t count,
                             std::span<const std::byte> payload) {
        codec.compress(payload, settings.level, compressed);
        internal::encode_chunk(out, kind, frame, count, payload, compressed);
        index.push_back(internal::index_entry{kind, frame, file.size()});
        return file.append(out); // one write per chunk: a crash leaves at most one partial chunk
    }

    result<void> write_frames() {
        if (chunk_frames == 0) return {};
        auto r = write_chunk(chunk_kind::frames, chunk_first, chunk_frames, frames);
        frames.clear();
        chunk_frames = 0;
        return r;
    }

    result<void> write_keyframe(const world &w, std::uint64_t frame) {
        save(w, current, frame);
        const bool full = keyframes % settings.full_keyframe_every == 0;
        result<void> r;
        if (!full && delta.encode(current.bytes(), previous.bytes(), raw)) {
            r = write_chunk(chunk_kind::delta_keyframe, frame, 1, raw);
        } else { // a full image (also whenever a delta cannot be formed)
            r = write_chunk(chunk_kind::full_keyframe, frame, 1, current.bytes());
        }
        std::swap(previous, current);
        ++keyframes;
        return r;
    }

    /// The seek index chunk (listing every chunk before it) and the trailer pointing at it.
    result<void> write_index() {
        internal::encode_index(index, raw);
        const std::uint64_t index_offset = file.size();
        if (auto r = write_chunk(chunk_kind::index, next_frame, static_cast<std::uint32_t>(index.size()), raw); !r)
            return r;
        index.pop_back();
        internal::encode_trailer(index_offset, out);
        return file.append(out);
    }
};

replay_writer::replay_writer(std::unique_ptr<impl> p) noexcept : impl_{std::move(p)} {}
replay_writer::replay_writer(replay_writer &&) noexcept = default;
replay_writer &replay_writer::operator=(replay_writer &&) noexcept = default;
replay_writer::~replay_writer() {
    if (impl_ && !impl_->finished) (void)impl_->write_frames(); // best effort; no index
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
    if (auto r = p->file.open(path); !r) return r.err();
    p->settings = std::move(settings);
    p->start_frame = start_frame;
    p->next_frame = start_frame;
    p->chunk_first = start_frame;
    if (auto r = p->write_header(start); !r) return r.err();
    if (auto r = p->write_keyframe(start, start_frame); !r) return r.err();
    if (auto r = p->file.sync(); !r) return r.err();
    return replay_writer{std::move(p)};
}

result<void> replay_writer::add_frame(const frame_inputs &in, const world &after, std::optional<hash64> known) {
    impl &m = *impl_;
    if (m.finished) return {errc::invalid_argument, "replay_writer: add_frame after finish"};
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
    if (after.schema_hash() != m.previous.header().schema_hash)
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
        if (auto r = m.write_frames(); !r) return r;
    if (keyframe_due)
        if (auto r = m.write_keyframe(after, m.next_frame); !r) return r;
    return {};
}

result<void> replay_writer::flush() {
    if (auto r = impl_->write_frames(); !r) return r;
    return impl_->file.sync();
}

result<void> replay_writer::finish() {
    impl &m = *impl_;
    if (m.finished) return {};
    if (auto r = m.write_frames(); !r) return r;
    if (auto r = m.write_index(); !r) return r;
    if (auto r = m.file.sync(); !r) return r;
    m.finished = true;
    return m.file.close();
}

frame_t replay_writer::next_frame() const noexcept { return static_cast<frame_t>(impl_->next_frame); }
std::uint64_t replay_writer::bytes_written() const noexcept { return impl_->file.size(); }

} // namespace retcon
