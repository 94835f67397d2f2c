#include <retcon/snapshot/replay.hpp>

#include <algorithm>
#include <cstring>
#include <string>

#include <retcon/internal/byte_io.hpp>
#include "codec.hpp"
#include "file_header.hpp"
#include "fs.hpp"
#include "image_layout.hpp"

namespace retcon {

namespace {

constexpr std::size_t chunk_header_size = 40;
constexpr std::size_t trailer_size = 16;
constexpr std::uint32_t chunk_magic = 0x4b434352u;   // "RCCK"
constexpr std::uint32_t trailer_magic = 0x45524352u; // "RCRE"
constexpr std::size_t max_metadata_entries = 1024;
constexpr std::size_t max_metadata_text = 1u << 16;

enum class chunk_kind : std::uint8_t { full_keyframe = 1, delta_keyframe = 2, frames = 3, index = 4 };

std::size_t record_size(const replay_settings &s) noexcept {
    return std::size_t{s.players} * (1u + std::size_t{s.input_size}) + 8u;
}

/// out = cur XOR prev, region by region (so one pool changing size does not misalign the rest).
/// False if the two images' layouts cannot be paired (then a full keyframe must be written).
bool encode_delta(std::span<const std::byte> cur, std::span<const std::byte> prev, std::vector<std::byte> &out) {
    thread_local std::vector<internal::image_layout::region> rc, rp;
    if (!internal::image_layout::section_regions(cur, rc) || !internal::image_layout::section_regions(prev, rp) ||
        rc.size() != rp.size())
        return false;
    out.assign(cur.begin(), cur.end());
    for (std::size_t i = 0; i < rc.size(); ++i) {
        const std::size_t n = std::min(rc[i].length, rp[i].length);
        for (std::size_t k = 0; k < n; ++k) out[rc[i].offset + k] ^= prev[rp[i].offset + k];
    }
    return true;
}

/// Inverse of encode_delta; false if the decoded layout is inconsistent.
bool decode_delta(std::span<const std::byte> delta, std::span<const std::byte> prev, std::span<std::byte> out) {
    thread_local std::vector<internal::image_layout::region> rc, rp;
    if (!internal::image_layout::section_regions(prev, rp) || delta.size() < rp[0].length + rp[1].length) return false;
    std::memcpy(out.data(), delta.data(), delta.size());
    for (std::size_t k = 0; k < rp[0].length + rp[1].length; ++k) out[k] ^= prev[k]; // header + pool table
    if (!internal::image_layout::section_regions(out, rc) || rc.size() != rp.size()) return false;
    for (std::size_t i = 2; i < rc.size(); ++i) {
        const std::size_t n = std::min(rc[i].length, rp[i].length);
        for (std::size_t k = 0; k < n; ++k) out[rc[i].offset + k] ^= prev[rp[i].offset + k];
    }
    return true;
}

/// Low 32 bits of XXH3 over a chunk header's first 28 bytes. It lets a reader tell a damaged
/// length field (corruption) from a chunk cut short by a crash (truncation).
std::uint32_t header_check(std::span<const std::byte> header28) {
    return static_cast<std::uint32_t>(xxh3(header28.first(28)));
}

void write_chunk_header(std::vector<std::byte> &out, chunk_kind kind, std::uint64_t frame, std::uint32_t count,
                        std::uint32_t stored, std::uint32_t raw) {
    const std::size_t start = out.size();
    internal::byte_writer w{out};
    w.u32(chunk_magic);
    w.u8(static_cast<std::uint8_t>(kind));
    w.u8(0);
    w.u16(0);
    w.u64(frame);
    w.u32(count);
    w.u32(stored);
    w.u32(raw);
    w.u32(header_check(std::span<const std::byte>(out).subspan(start, 28)));
}

/// Checksum of a chunk: XXH3 over its header's first 32 bytes followed by the raw payload.
hash64 chunk_checksum(std::span<const std::byte> header32, std::span<const std::byte> raw) {
    thread_local std::vector<std::byte> buf;
    buf.assign(header32.begin(), header32.end());
    buf.insert(buf.end(), raw.begin(), raw.end());
    return xxh3(buf);
}

using internal::at_byte;

} // namespace

// ============================================================================ writer

struct replay_writer::impl {
    internal::append_file file;
    replay_settings settings;
    std::uint64_t start_frame = 0;
    std::uint64_t next_frame = 0;
    std::uint64_t chunk_first = 0;
    std::uint32_t chunk_frames = 0;
    std::uint64_t keyframes = 0;
    std::vector<std::byte> frames;     // buffered frame records
    world_image previous;                 // last keyframe image
    world_image current;
    std::vector<std::byte> raw;        // scratch: delta
    std::vector<std::byte> compressed; // scratch
    std::vector<std::byte> out;        // scratch: chunk bytes
    struct entry {
        chunk_kind kind;
        std::uint64_t frame;
        std::uint64_t offset;
    };
    std::vector<entry> index;
    bool finished = false;

    result<void> write_chunk(chunk_kind kind, std::uint64_t frame, std::uint32_t count, std::span<const std::byte> payload) {
        internal::compress(payload, settings.level, compressed);
        out.clear();
        write_chunk_header(out, kind, frame, count, static_cast<std::uint32_t>(compressed.size()),
                           static_cast<std::uint32_t>(payload.size()));
        internal::byte_writer w{out};
        w.u64(chunk_checksum(std::span<const std::byte>(out).first(32), payload));
        w.bytes(compressed);
        index.push_back(entry{kind, frame, file.size()});
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
        if (!full && encode_delta(current.bytes(), previous.bytes(), raw)) {
            r = write_chunk(chunk_kind::delta_keyframe, frame, 1, raw);
        } else { // a full image (also whenever a delta cannot be formed)
            r = write_chunk(chunk_kind::full_keyframe, frame, 1, current.bytes());
        }
        std::swap(previous, current);
        ++keyframes;
        return r;
    }
};

replay_writer::replay_writer(std::unique_ptr<impl> p) noexcept : impl_{std::move(p)} {}
replay_writer::replay_writer(replay_writer &&) noexcept = default;
replay_writer &replay_writer::operator=(replay_writer &&) noexcept = default;
replay_writer::~replay_writer() {
    if (impl_ && !impl_->finished) (void)impl_->write_frames(); // best effort; no index
}

result<replay_writer> replay_writer::create(const std::filesystem::path &path, const world &start,
                                            frame_t start_frame, replay_settings settings) {
    if (settings.players == 0 || settings.players > 256 || settings.input_size == 0 || settings.input_size > 4096 ||
        settings.keyframe_interval == 0 || settings.full_keyframe_every == 0 || settings.frames_per_chunk == 0 ||
        settings.frames_per_chunk > 65536)
        return error{errc::invalid_argument, path.string() +
                                                 ": replay settings out of range (players 1..256, input_size 1..4096, "
                                                 "intervals >= 1, frames_per_chunk 1..65536)"};
    if (start_frame > max_frame)
        return error{errc::invalid_argument, path.string() + ": start frame beyond the last frame a match can simulate"};
    if (settings.metadata.size() > max_metadata_entries)
        return error{errc::invalid_argument, path.string() + ": too many metadata entries"};
    for (const auto &[k, v] : settings.metadata)
        if (k.size() > max_metadata_text || v.size() > max_metadata_text)
            return error{errc::invalid_argument, path.string() + ": metadata entry '" + k.substr(0, 32) + "' too long"};

    auto p = std::make_unique<impl>();
    if (auto r = p->file.open(path); !r) return r.err();
    p->settings = std::move(settings);
    p->start_frame = start_frame;
    p->next_frame = start_frame;
    p->chunk_first = start_frame;

    const auto schema_bytes = start.get_schema().serialize();
    std::vector<std::byte> meta;
    {
        internal::byte_writer m{meta};
        m.u32(static_cast<std::uint32_t>(p->settings.metadata.size()));
        for (const auto &[k, v] : p->settings.metadata) {
            m.text32(k);
            m.text32(v);
        }
    }
    std::vector<std::byte> fields;
    {
        internal::byte_writer w{fields};
        w.u32(static_cast<std::uint32_t>(meta.size()));
        w.u32(p->settings.players);
        w.u32(p->settings.input_size);
        w.u32(p->settings.tick_hz);
        w.u32(p->settings.keyframe_interval);
        w.u32(p->settings.full_keyframe_every);
        w.u32(p->settings.frames_per_chunk);
    }
    std::vector<std::byte> head;
    internal::write_file_header(head, internal::replay_format, start.schema_hash(), start_frame, fields, schema_bytes,
                                meta);
    if (auto r = p->file.append(head); !r) return r.err();
    if (auto r = p->write_keyframe(start, start_frame); !r) return r.err();
    if (auto r = p->file.sync(); !r) return r.err();
    return replay_writer{std::move(p)};
}

result<void> replay_writer::add_frame(const frame_inputs &in, const world &after, std::optional<hash64> known) {
    impl &m = *impl_;
    if (m.finished) return {errc::invalid_argument, "replay_writer: add_frame after finish"};
    if (in.players() != m.settings.players || in.input_size() != m.settings.input_size)
        return {errc::invalid_argument, "replay_writer: frame " + std::to_string(in.frame()) + " has " +
                                            std::to_string(in.players()) + " players of " + std::to_string(in.input_size()) +
                                            " input bytes; the replay has " + std::to_string(m.settings.players) + " of " +
                                            std::to_string(m.settings.input_size)};
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
    std::vector<std::byte> idx;
    {
        internal::byte_writer w{idx};
        w.u32(static_cast<std::uint32_t>(m.index.size()));
        for (const auto &e : m.index) {
            w.u64(e.frame);
            w.u64(e.offset);
            w.u8(static_cast<std::uint8_t>(e.kind));
            for (int i = 0; i < 7; ++i) w.u8(0);
        }
    }
    const std::uint64_t index_offset = m.file.size();
    if (auto r = m.write_chunk(chunk_kind::index, m.next_frame, static_cast<std::uint32_t>(m.index.size()), idx); !r)
        return r;
    m.index.pop_back();
    std::vector<std::byte> trailer;
    internal::byte_writer t{trailer};
    t.u64(index_offset);
    t.u32(trailer_magic);
    t.u32(0);
    if (auto r = m.file.append(trailer); !r) return r;
    if (auto r = m.file.sync(); !r) return r;
    m.finished = true;
    return m.file.close();
}

frame_t replay_writer::next_frame() const noexcept { return static_cast<frame_t>(impl_->next_frame); }
std::uint64_t replay_writer::bytes_written() const noexcept { return impl_->file.size(); }

// ============================================================================ reader

struct replay_reader::impl {
    std::string name;
    read_limits limits;
    std::vector<std::byte> bytes;
    retcon::schema sch;
    replay_settings settings;
    frame_t start_frame = 0;
    std::uint32_t frame_count = 0;
    std::size_t record = 0;
    std::vector<std::byte> records; // frame_count records
    std::vector<replay_keyframe> keyframes;
    bool complete = false;
    std::string truncation;
    /// The record of @p frame; a frame outside the replay is misuse (reported as @p what).
    const std::byte *record_of(frame_t frame, const char *what) const;

    // Decoding cache: the last keyframe decoded (deltas chain from it).
    mutable std::size_t cached_index = ~std::size_t{0};
    mutable world_image cached;

    result<void> decode_chunk(std::uint64_t offset, std::span<std::byte> raw) const {
        internal::byte_reader r{std::span<const std::byte>(bytes).subspan(offset), offset};
        r.u32();
        r.u32();
        r.u64();
        r.u32();
        const auto stored = r.u32();
        r.u32();
        r.u32();
        const auto checksum = r.u64();
        const auto payload = r.bytes(stored);
        if (auto d = internal::decompress(payload, raw, at_byte(name, offset + chunk_header_size) + "chunk"); !d) return d;
        if (chunk_checksum(std::span<const std::byte>(bytes).subspan(offset, 32), raw) != checksum)
            return {errc::checksum, at_byte(name, offset) + "chunk checksum mismatch"};
        return {};
    }

    /// Checks that the zstd frame of the chunk at @p offset declares @p raw bytes, before a
    /// buffer of that size is allocated (a forged raw size must not allocate up to the limit).
    result<void> check_chunk_size(std::uint64_t offset, std::size_t raw) const {
        internal::byte_reader r{std::span<const std::byte>(bytes).subspan(offset), offset};
        r.bytes(20); // magic, kind, reserved, frame, count
        const auto stored = r.u32();
        r.bytes(16); // raw size, header check, checksum
        return internal::check_content_size(r.bytes(stored), raw, at_byte(name, offset + chunk_header_size) + "chunk");
    }

    result<void> keyframe_image(std::size_t index, world_image &out) const {
        if (index >= keyframes.size()) return {errc::not_found, name + ": no keyframe " + std::to_string(index)};
        std::size_t first = index;
        while (!keyframes[first].full) --first; // the scan guarantees keyframe 0 is full
        if (cached_index != ~std::size_t{0} && cached_index <= index && cached_index >= first) first = cached_index;
        else {
            const auto &k = keyframes[first];
            if (auto r = check_chunk_size(k.offset, k.image_bytes); !r) {
                cached_index = ~std::size_t{0};
                return r;
            }
            if (auto r = decode_chunk(k.offset, {cached.prepare(k.image_bytes), k.image_bytes}); !r) {
                cached_index = ~std::size_t{0};
                return r;
            }
            cached_index = first;
            if (auto v = check_image(first); !v) return v;
        }
        thread_local std::vector<std::byte> delta;
        world_image next;
        for (std::size_t i = first + 1; i <= index; ++i) {
            const auto &k = keyframes[i];
            if (auto r = check_chunk_size(k.offset, k.image_bytes); !r) {
                cached_index = ~std::size_t{0};
                return r;
            }
            delta.resize(k.image_bytes);
            if (auto r = decode_chunk(k.offset, delta); !r) {
                cached_index = ~std::size_t{0};
                return r;
            }
            if (!decode_delta(delta, cached.bytes(), {next.prepare(k.image_bytes), k.image_bytes})) {
                cached_index = ~std::size_t{0};
                return {errc::corrupt, at_byte(name, k.offset) + "delta keyframe does not fit the previous keyframe"};
            }
            std::swap(cached, next);
            cached_index = i;
            if (auto v = check_image(i); !v) return v;
        }
        out = cached;
        return {};
    }

    result<void> check_image(std::size_t index) const {
        const world probe{sch};
        if (auto v = validate_image(probe, cached.bytes()); !v) {
            cached_index = ~std::size_t{0};
            return {v.code(), at_byte(name, keyframes[index].offset) + "keyframe: " + v.message()};
        }
        if (cached.header().frame != keyframes[index].frame) {
            cached_index = ~std::size_t{0};
            return {errc::corrupt, at_byte(name, keyframes[index].offset) + "keyframe image says frame " +
                                       std::to_string(cached.header().frame) + ", chunk says " +
                                       std::to_string(keyframes[index].frame)};
        }
        return {};
    }
};

replay_reader::replay_reader(std::unique_ptr<impl> p) noexcept : impl_{std::move(p)} {}
replay_reader::replay_reader(replay_reader &&) noexcept = default;
replay_reader &replay_reader::operator=(replay_reader &&) noexcept = default;
replay_reader::~replay_reader() = default;

result<replay_reader> replay_reader::open(const std::filesystem::path &path, const read_limits &limits) {
    auto bytes = internal::read_file(path, limits.max_file_bytes);
    if (!bytes) return bytes.err();
    return parse(std::move(*bytes), path.string(), limits);
}

result<replay_reader> replay_reader::parse(std::vector<std::byte> bytes, const std::string &name,
                                           const read_limits &limits) {
    auto p = std::make_unique<impl>();
    p->name = name;
    p->limits = limits;
    p->bytes = std::move(bytes);
    const std::span<const std::byte> all = p->bytes;

    const auto &format = internal::replay_format;
    auto head = internal::read_file_header(all, format, name);
    if (!head) return head.err();
    internal::byte_reader r{head->format_fields};
    const auto meta_size = r.u32();
    auto &s = p->settings;
    s.players = r.u32();
    s.input_size = r.u32();
    s.tick_hz = r.u32();
    s.keyframe_interval = r.u32();
    s.full_keyframe_every = r.u32();
    s.frames_per_chunk = r.u32();
    const auto schema_size = head->schema_size;
    if (auto f = to_frame(head->frame); !f)
        return error{errc::corrupt, at_byte(name, 16) + "start frame " + std::to_string(head->frame) +
                                        " is beyond the 32-bit frame range (the last frame is " +
                                        std::to_string(max_frame) + ")"};
    else p->start_frame = *f;
    auto blocks = internal::read_header_blocks(all, *head, meta_size, format, name);
    if (!blocks) return blocks.err();
    const auto meta_bytes = blocks->extra_block;
    if (s.players == 0 || s.players > 256 || s.input_size == 0 || s.input_size > 4096 || s.keyframe_interval == 0 ||
        s.full_keyframe_every == 0 || s.frames_per_chunk == 0 || s.frames_per_chunk > 65536)
        return error{errc::corrupt, at_byte(name, 32) + "replay settings out of range"};
    auto sch = internal::parse_schema_block(*blocks, *head, name);
    if (!sch) return sch.err();
    p->sch = std::move(*sch);
    {
        internal::byte_reader m{meta_bytes, 64 + schema_size};
        const auto n = m.u32();
        if (n > max_metadata_entries) return error{errc::corrupt, at_byte(name, m.offset()) + "too many metadata entries"};
        for (std::uint32_t i = 0; i < n && m.ok(); ++i) {
            auto k = m.text(m.u32(), max_metadata_text);
            auto v = m.text(m.u32(), max_metadata_text);
            s.metadata.emplace_back(std::move(k), std::move(v));
        }
        if (!m.ok() || m.remaining() != 0) return error{errc::corrupt, at_byte(name, m.offset()) + "metadata block is malformed"};
    }
    p->record = record_size(s);

    // Scan chunks. Frame numbers are checked in 64 bits, before any is narrowed to frame_t: the
    // frames run from the start frame without gaps, keyframe j sits at start + j·K (the next
    // keyframe's frame bounds every frames chunk), and the seek index ends where the frames do
    // (docs/file-format.md, "Frame ranges").
    std::uint64_t pos = blocks->end;
    std::uint64_t expected_frame = p->start_frame;
    // The frame of keyframe j: start + j·K (no overflow: j < 2^32 keyframes of K < 2^32 frames).
    const auto keyframe_due = [&](std::size_t j) {
        return std::uint64_t{p->start_frame} + std::uint64_t{j} * s.keyframe_interval;
    };
    std::vector<std::pair<std::uint64_t, std::uint64_t>> scanned; // (frame, offset) of every chunk
    std::vector<chunk_kind> scanned_kinds;
    std::vector<std::byte> raw;
    while (pos < all.size()) {
        const std::uint64_t left = all.size() - pos;
        if (left == trailer_size) {
            internal::byte_reader t{all.subspan(static_cast<std::size_t>(pos)), pos};
            t.u64();
            if (t.u32() == trailer_magic) {
                p->truncation = "seek index missing before the trailer";
                break;
            }
        }
        if (left < chunk_header_size) {
            p->truncation = "file ends inside a chunk header at byte " + std::to_string(pos);
            break;
        }
        internal::byte_reader c{all.subspan(static_cast<std::size_t>(pos)), pos};
        const auto cmagic = c.u32();
        const auto kind = static_cast<chunk_kind>(c.u8());
        c.u8();
        c.u16();
        const auto frame = c.u64();
        const auto count = c.u32();
        const auto stored = c.u32();
        const auto raw_size = c.u32();
        const auto hcheck = c.u32();
        c.u64();
        if (cmagic != chunk_magic) return error{errc::corrupt, at_byte(name, pos) + "expected a chunk (bad chunk magic)"};
        if (hcheck != header_check(all.subspan(static_cast<std::size_t>(pos), 28)))
            return error{errc::checksum, at_byte(name, pos) + "chunk header checksum mismatch (header damaged)"};
        if (left - chunk_header_size < stored) {
            p->truncation = "file ends inside a chunk at byte " + std::to_string(pos) + " (writer stopped mid-way)";
            break;
        }
        if (raw_size > limits.max_image_bytes)
            return error{errc::too_large, at_byte(name, pos + 24) + "chunk declares " + std::to_string(raw_size) +
                                              " raw bytes, over the limit"};
        const std::uint64_t end = pos + chunk_header_size + stored;
        switch (kind) {
        case chunk_kind::full_keyframe:
        case chunk_kind::delta_keyframe:
            if (frame > max_frame)
                return error{errc::corrupt, at_byte(name, pos + 8) + "keyframe for frame " + std::to_string(frame) +
                                                ", beyond the 32-bit frame range"};
            if (frame != expected_frame)
                return error{errc::corrupt, at_byte(name, pos + 8) + "keyframe for frame " + std::to_string(frame) +
                                                " where frame " + std::to_string(expected_frame) + " was expected"};
            if (frame != keyframe_due(p->keyframes.size()))
                return error{errc::corrupt, at_byte(name, pos + 8) + "keyframe " + std::to_string(p->keyframes.size()) +
                                                " for frame " + std::to_string(frame) + "; the keyframe interval " +
                                                std::to_string(s.keyframe_interval) + " puts it at frame " +
                                                std::to_string(keyframe_due(p->keyframes.size()))};
            if (p->keyframes.empty() && kind != chunk_kind::full_keyframe)
                return error{errc::corrupt, at_byte(name, pos) + "the first keyframe must be a full image"};
            if (count != 1) return error{errc::corrupt, at_byte(name, pos + 16) + "keyframe chunk with count " + std::to_string(count)};
            p->keyframes.push_back(
                replay_keyframe{static_cast<frame_t>(frame), kind == chunk_kind::full_keyframe, pos, stored, raw_size});
            break;
        case chunk_kind::frames: {
            if (p->keyframes.empty()) return error{errc::corrupt, at_byte(name, pos) + "frames before the starting keyframe"};
            if (frame != expected_frame)
                return error{errc::corrupt, at_byte(name, pos + 8) + "frames chunk starts at frame " + std::to_string(frame) +
                                                ", expected " + std::to_string(expected_frame)};
            if (count == 0 || count > s.frames_per_chunk || std::uint64_t{count} * p->record != raw_size)
                return error{errc::corrupt, at_byte(name, pos + 16) + "frames chunk declares " + std::to_string(count) +
                                                " frames in " + std::to_string(raw_size) + " bytes"};
            if (expected_frame + count - 1u > max_frame)
                return error{errc::corrupt, at_byte(name, pos + 16) + "frames chunk runs to frame " +
                                                std::to_string(expected_frame + count - 1u) +
                                                ", beyond the 32-bit frame range"};
            // The writer closes a frames chunk where a keyframe is due, so no chunk runs past
            // the next keyframe's frame (a keyframe left out shows here).
            if (const auto next_keyframe = keyframe_due(p->keyframes.size()); expected_frame + count > next_keyframe)
                return error{errc::corrupt, at_byte(name, pos + 16) + "frames chunk runs to frame " +
                                                std::to_string(expected_frame + count - 1u) +
                                                ", past the keyframe due at frame " + std::to_string(next_keyframe) +
                                                " (keyframe interval " + std::to_string(s.keyframe_interval) + ")"};
            if (p->records.size() + raw_size > limits.max_image_bytes)
                return error{errc::too_large, at_byte(name, pos) + "decoded frames exceed the limit"};
            if (auto sized = p->check_chunk_size(pos, raw_size); !sized) return sized.err();
            raw.resize(raw_size);
            if (auto d = p->decode_chunk(pos, raw); !d) return d.err();
            for (std::uint32_t k = 0; k < count; ++k) {
                const frame_inputs in{static_cast<frame_t>(expected_frame + k), s.players, s.input_size,
                                      raw.data() + std::size_t{k} * p->record};
                if (const std::size_t slot = in.first_unknown_flags(); slot != in.players())
                    return error{errc::corrupt, at_byte(name, pos) + "frame " + std::to_string(in.frame()) +
                                                    " has unknown flag bits for slot " + std::to_string(slot)};
            }
            p->records.insert(p->records.end(), raw.begin(), raw.end());
            expected_frame += count;
            p->frame_count += count;
            break;
        }
        case chunk_kind::index: {
            // Its header is intact (the header check passed), so its frame and count are checked
            // even when the trailer after it is cut off.
            if (frame != expected_frame)
                return error{errc::corrupt, at_byte(name, pos + 8) + "seek index says the frames end at frame " +
                                                std::to_string(frame) + "; the chunks end at frame " +
                                                std::to_string(expected_frame)};
            if (count != scanned.size())
                return error{errc::corrupt, at_byte(name, pos + 16) + "seek index declares " + std::to_string(count) +
                                                " entries; " + std::to_string(scanned.size()) + " chunks precede it"};
            if (all.size() - end < trailer_size) {
                // The writer stopped between the seek index and the trailer: the chunks before
                // the index are intact, so this reads like any other cut-short file.
                p->truncation = "file ends inside the trailer at byte " + std::to_string(end);
                pos = all.size();
                continue;
            }
            if (auto sized = p->check_chunk_size(pos, raw_size); !sized) return sized.err();
            raw.resize(raw_size);
            if (auto d = p->decode_chunk(pos, raw); !d) return d.err();
            internal::byte_reader ix{raw, pos};
            const auto n = ix.u32();
            bool same = n == scanned.size() && raw_size == 4u + 24u * std::uint64_t{n};
            for (std::uint32_t i = 0; same && i < n; ++i) {
                const auto f = ix.u64();
                const auto o = ix.u64();
                const auto k = static_cast<chunk_kind>(ix.u8());
                ix.bytes(7);
                same = ix.ok() && f == scanned[i].first && o == scanned[i].second && k == scanned_kinds[i];
            }
            if (!same) return error{errc::corrupt, at_byte(name, pos) + "seek index disagrees with the chunks in the file"};
            if (all.size() - end != trailer_size)
                return error{errc::corrupt, at_byte(name, end) + "expected the 16-byte trailer after the seek index"};
            internal::byte_reader t{all.subspan(static_cast<std::size_t>(end)), end};
            const auto index_offset = t.u64();
            const auto tmagic = t.u32();
            if (tmagic != trailer_magic || index_offset != pos || t.u32() != 0)
                return error{errc::corrupt, at_byte(name, end) + "bad trailer"};
            p->complete = true;
            pos = all.size();
            continue;
        }
        default:
            return error{errc::corrupt, at_byte(name, pos + 4) + "unknown chunk kind " + std::to_string(static_cast<int>(kind))};
        }
        scanned.emplace_back(frame, pos);
        scanned_kinds.push_back(kind);
        pos = end;
    }
    if (p->keyframes.empty())
        return error{errc::truncated, at_byte(name, pos) + "no complete starting keyframe" +
                                          (p->truncation.empty() ? std::string() : " (" + p->truncation + ")")};
    if (!p->complete && p->truncation.empty()) p->truncation = "file ends without a seek index (writer did not finish)";
    // A keyframe past the last frame (frames lost after it) cannot be used for seeking past inputs.
    return replay_reader{std::move(p)};
}

const retcon::schema &replay_reader::schema() const noexcept { return impl_->sch; }
const replay_settings &replay_reader::settings() const noexcept { return impl_->settings; }
frame_t replay_reader::start_frame() const noexcept { return impl_->start_frame; }
std::uint32_t replay_reader::frame_count() const noexcept { return impl_->frame_count; }
bool replay_reader::complete() const noexcept { return impl_->complete; }
const std::string &replay_reader::truncation_note() const noexcept { return impl_->truncation; }
const std::string &replay_reader::name() const noexcept { return impl_->name; }
std::uint64_t replay_reader::file_bytes() const noexcept { return impl_->bytes.size(); }

const std::byte *replay_reader::impl::record_of(frame_t frame, const char *what) const {
    if (frame < start_frame || frame - start_frame >= frame_count)
        internal::misuse("replay_reader::%s: frame %u is outside the replay's frames [%u, %u)", what, frame, start_frame,
                         start_frame + frame_count);
    return records.data() + std::size_t{frame - start_frame} * record;
}

frame_inputs replay_reader::inputs(frame_t frame) const {
    return {frame, impl_->settings.players, impl_->settings.input_size, impl_->record_of(frame, "inputs")};
}

hash64 replay_reader::hash(frame_t frame) const {
    const auto *rec = impl_->record_of(frame, "hash") + impl_->record - 8u;
    hash64 h = 0;
    for (int i = 0; i < 8; ++i) h |= hash64{static_cast<std::uint8_t>(rec[i])} << (8 * i);
    return h;
}

std::span<const replay_keyframe> replay_reader::keyframes() const noexcept { return impl_->keyframes; }

result<void> replay_reader::keyframe_image(std::size_t index, world_image &out) const {
    return impl_->keyframe_image(index, out);
}

result<frame_t> replay_reader::restore_keyframe(world &w, frame_t frame) const {
    if (w.schema_hash() != impl_->sch.hash())
        return error{errc::schema_mismatch, impl_->name + ": the world's schema differs from the replay's"};
    const auto &ks = impl_->keyframes;
    std::size_t best = ks.size();
    for (std::size_t i = 0; i < ks.size() && ks[i].frame <= frame; ++i) best = i;
    if (best == ks.size())
        return error{errc::not_found, impl_->name + ": no keyframe at or before frame " + std::to_string(frame)};
    world_image img;
    if (auto r = impl_->keyframe_image(best, img); !r) return r.err();
    if (auto r = restore(w, img); !r) return r.err();
    return ks[best].frame;
}

result<void> replay_reader::check(const std::function<void(std::size_t, std::size_t)> &progress) const {
    world_image img;
    const auto &ks = impl_->keyframes;
    for (std::size_t i = 0; i < ks.size(); ++i) {
        if (auto r = impl_->keyframe_image(i, img); !r)
            return {r.code(),
                    r.message() + " (keyframe " + std::to_string(i) + ", frame " + std::to_string(ks[i].frame) + ")"};
        const auto f = ks[i].frame;
        if (f > impl_->start_frame && f - 1 < end_frame() && retcon::hash(img) != hash(f - 1))
            return {errc::checksum, at_byte(impl_->name, ks[i].offset) + "keyframe at frame " + std::to_string(f) +
                                        " does not hash to the value recorded for frame " + std::to_string(f - 1)};
        if (progress) progress(i + 1, ks.size());
    }
    return {};
}

result<verify_report> verify(const replay_reader &reader, world &w, const step_function &step) {
    if (w.schema_hash() != reader.schema().hash())
        return error{errc::schema_mismatch, reader.name() + ": the world's schema differs from the replay's"};
    // An incomplete file with no readable frame may have held any number of them: nothing
    // would be verified, and that is not a success (a complete file of zero frames is).
    if (reader.frame_count() == 0 && !reader.complete())
        return error{errc::truncated, reader.name() + ": no frame is readable, nothing was verified; " +
                                          reader.truncation_note()};
    // Every keyframe, with the checksums and hashes `check` verifies: a damaged keyframe fails
    // verification even though re-simulation does not restore it.
    if (auto c = reader.check(); !c) return c.err();
    auto start = reader.restore_keyframe(w, reader.start_frame());
    if (!start) return start.err();
    verify_report rep;
    const auto &ks = reader.keyframes();
    for (frame_t f = reader.start_frame(); f < reader.end_frame(); ++f) {
        step(w, reader.inputs(f));
        ++rep.frames_checked;
        const hash64 h = hash(w);
        if (h == reader.hash(f)) continue;
        rep.first_mismatch = f;
        rep.expected = reader.hash(f);
        rep.actual = h;
        // Name the diverging sections at the next keyframe, if the replay has one.
        for (std::size_t i = 0; i < ks.size(); ++i) {
            if (ks[i].frame <= f) continue;
            for (frame_t g = f + 1; g < ks[i].frame; ++g) step(w, reader.inputs(g));
            world_image img;
            if (reader.keyframe_image(i, img))
                rep.diverging = section_hashes(w).diverging(section_hashes(img), reader.schema());
            break;
        }
        break;
    }
    // Every frame the reader holds was re-simulated, unless a mismatch stopped the walk early.
    if (!rep.first_mismatch && rep.frames_checked != reader.frame_count())
        return error{errc::corrupt, reader.name() + ": re-simulated " + std::to_string(rep.frames_checked) +
                                        " of the replay's " + std::to_string(reader.frame_count()) + " frames"};
    return rep;
}

} // namespace retcon
