// replay_reader: opens a replay file as hostile input (docs/file-format.md, "Replay files",
// "Frame ranges", "Reading and truncation"). Opening reads the header, scans every chunk header
// and decodes every frames chunk; keyframes are decoded on demand.
#include <retcon/snapshot/replay.hpp>

#include <algorithm>
#include <string>
#include <utility>

#include "file_header.hpp"
#include "fs.hpp"
#include "keyframe_delta.hpp"
#include "keyframe_planes.hpp"
#include "replay_chunk.hpp"
#include "replay_header.hpp"
#include "zstd_codec.hpp"

namespace retcon {

using internal::at_byte;
using internal::chunk_header;
using internal::chunk_kind;

namespace {

/// Where the chunk scan is and what it has seen.
struct chunk_scan {
    std::uint64_t pos = 0;                     ///< offset of the next chunk header
    std::uint64_t expected_frame = 0;          ///< frame field the next frames chunk or keyframe must have
    std::vector<internal::index_entry> chunks; ///< every chunk so far: what the seek index must list
    std::vector<std::byte> raw;                ///< decoded payload (scratch)
    bool done = false;                         ///< the scan stopped before the end of the bytes
};

} // namespace

struct replay_reader::impl {
    std::string name;
    std::uint16_t version = 0;
    read_limits limits;
    std::vector<std::byte> bytes;
    retcon::schema sch;
    replay_settings settings;
    frame_t start_frame = 0;
    std::uint32_t frame_count = 0;
    std::size_t record = 0;
    std::size_t pools = 0;          // the schema's: a planes keyframe's pool map has one byte per pool
    std::vector<std::byte> records; // frame_count records
    std::vector<replay_keyframe> keyframes;
    bool complete = false;
    std::string truncation;

    // Decoding cache: the last keyframe decoded (deltas chain from it), and what decoding the
    // next one reuses: its delta bytes, the image it decodes into, the delta's region lists.
    mutable std::size_t cached_index = ~std::size_t{0};
    mutable world_image cached;
    mutable world_image next;
    mutable std::vector<std::byte> delta_bytes;
    mutable internal::keyframe_delta delta;
    mutable internal::keyframe_planes planes;
    mutable std::vector<std::byte> transposed; // a planes keyframe's raw payload
    mutable internal::zstd_codec codec;        // reused for every chunk, while opening and after

    /// The record of @p frame; a frame outside the replay is misuse (reported as @p what).
    const std::byte *record_of(frame_t frame, const char *what) const;

    // Opening, step by step.
    result<std::uint64_t> read_header();
    result<void> scan_chunks(std::uint64_t first_chunk);
    result<chunk_header> next_chunk(chunk_scan &scan);
    result<void> take_keyframe(chunk_scan &scan, const chunk_header &h);
    result<void> take_frames(chunk_scan &scan, const chunk_header &h);
    result<void> check_frames_range(const chunk_scan &scan, const chunk_header &h) const;
    result<void> take_index(chunk_scan &scan, const chunk_header &h);
    /// The frame keyframe @p j must have: start + j·K (no overflow: j < 2^32 keyframes of K < 2^32 frames).
    [[nodiscard]] std::uint64_t keyframe_due(std::size_t j) const noexcept {
        return std::uint64_t{start_frame} + std::uint64_t{j} * settings.keyframe_interval;
    }

    // Decoding chunks and keyframes.
    [[nodiscard]] std::span<const std::byte> chunk_at(std::uint64_t offset) const {
        return std::span<const std::byte>(bytes).subspan(static_cast<std::size_t>(offset));
    }
    result<void> check_chunk_size(std::uint64_t offset, std::size_t raw) const;
    result<void> decode_chunk(std::uint64_t offset, std::span<std::byte> raw) const;
    result<void> keyframe_image(std::size_t index, world_image &out) const;
    /// Decodes keyframe @p index into the cache (unless it is there), resolving deltas.
    result<void> decode_keyframe(std::size_t index) const;
    /// Decodes full keyframe @p index into the cache and checks it.
    result<void> load_full_keyframe(std::size_t index) const;
    /// Decodes delta keyframe @p index against the cache (keyframe index - 1), makes it the cache
    /// and checks it.
    result<void> apply_delta_keyframe(std::size_t index) const;
    /// Checks the cached image, keyframe @p index (structure, frame).
    result<void> check_image(std::size_t index) const;
    /// Empties the cache after a failure; returns @p r.
    result<void> forget_cache(result<void> r) const {
        cached_index = ~std::size_t{0};
        return r;
    }
};

// ============================================================================ opening

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
    auto first_chunk = p->read_header();
    if (!first_chunk) return first_chunk.err();
    if (auto r = p->scan_chunks(*first_chunk); !r) return r.err();
    return replay_reader{std::move(p)};
}

/// The header, schema and metadata blocks; returns the offset of the first chunk.
result<std::uint64_t> replay_reader::impl::read_header() {
    const auto &format = internal::replay_format;
    auto head = internal::read_file_header(bytes, format, name);
    if (!head) return head.err();
    version = head->version;
    const std::uint32_t meta_size = internal::decode_replay_fields(head->format_fields, settings);
    if (auto f = to_frame(head->frame); !f)
        return error{errc::corrupt, at_byte(name, 16) + "start frame " + std::to_string(head->frame) +
                                        " is beyond the 32-bit frame range (the last frame is " +
                                        std::to_string(max_frame) + ")"};
    else
        start_frame = *f;
    auto blocks = internal::read_header_blocks(bytes, *head, meta_size, format, name);
    if (!blocks) return blocks.err();
    if (!internal::settings_in_range(settings))
        return error{errc::corrupt, at_byte(name, 32) + "replay settings out of range"};
    auto parsed = internal::parse_schema_block(*blocks, *head, name);
    if (!parsed) return parsed.err();
    sch = std::move(*parsed);
    pools = sch.components().size();
    const std::uint64_t meta_offset = internal::file_header_size + std::uint64_t{head->schema_size};
    if (auto m = internal::decode_metadata(blocks->extra_block, meta_offset, name, settings.metadata); !m)
        return m.err();
    record = internal::frame_record_size(settings.players, settings.input_size);
    return blocks->end;
}

/// Every chunk from @p first_chunk on. Frame numbers are checked in 64 bits, before any is
/// narrowed to frame_t: the frames run from the start frame without gaps, keyframe j sits at
/// start + j·K (the next keyframe's frame bounds every frames chunk), and the seek index ends
/// where the frames do (docs/file-format.md, "Frame ranges").
result<void> replay_reader::impl::scan_chunks(std::uint64_t first_chunk) {
    chunk_scan scan;
    scan.pos = first_chunk;
    scan.expected_frame = start_frame;
    while (scan.pos < bytes.size()) {
        auto h = next_chunk(scan);
        if (!h) return h.err();
        if (scan.done) break;
        result<void> taken;
        if (h->codec != 0 && h->kind != chunk_kind::full_keyframe && h->kind != chunk_kind::delta_keyframe)
            return error{errc::corrupt, at_byte(name, scan.pos + 5) + "reserved byte is " +
                                            std::to_string(static_cast<int>(h->codec)) + ", not 0"};
        switch (h->kind) {
        case chunk_kind::full_keyframe:
        case chunk_kind::delta_keyframe: taken = take_keyframe(scan, *h); break;
        case chunk_kind::frames: taken = take_frames(scan, *h); break;
        case chunk_kind::index: taken = take_index(scan, *h); break;
        default:
            return error{errc::corrupt, at_byte(name, scan.pos + 4) + "unknown chunk kind " +
                                            std::to_string(static_cast<int>(h->kind))};
        }
        if (!taken) return taken;
        if (scan.done) break;
        scan.chunks.push_back(internal::index_entry{h->kind, h->frame, scan.pos});
        scan.pos += internal::chunk_header_size + h->stored;
    }
    if (keyframes.empty())
        return error{errc::truncated, at_byte(name, scan.pos) + "no complete starting keyframe" +
                                          (truncation.empty() ? std::string() : " (" + truncation + ")")};
    if (!complete && truncation.empty()) truncation = "file ends without a seek index (writer did not finish)";
    // A keyframe past the last frame (frames lost after it) cannot be used for seeking past inputs.
    return {};
}

/// The chunk header at scan.pos, checked; scan.done (with the truncation noted) where the file
/// ends before a whole chunk.
result<chunk_header> replay_reader::impl::next_chunk(chunk_scan &scan) {
    const std::uint64_t left = bytes.size() - scan.pos;
    const auto at = chunk_at(scan.pos);
    if (left == internal::trailer_size && internal::read_trailer(at).magic == internal::trailer_magic) {
        truncation = "seek index missing before the trailer";
        scan.done = true;
        return chunk_header{};
    }
    if (left < internal::chunk_header_size) {
        truncation = "file ends inside a chunk header at byte " + std::to_string(scan.pos);
        scan.done = true;
        return chunk_header{};
    }
    const chunk_header h = internal::read_chunk_header(at);
    if (h.magic != internal::chunk_magic)
        return error{errc::corrupt, at_byte(name, scan.pos) + "expected a chunk (bad chunk magic)"};
    if (!internal::chunk_header_intact(at, h))
        return error{errc::checksum, at_byte(name, scan.pos) + "chunk header checksum mismatch (header damaged)"};
    if (left - internal::chunk_header_size < h.stored) {
        truncation = "file ends inside a chunk at byte " + std::to_string(scan.pos) + " (writer stopped mid-way)";
        scan.done = true;
        return h;
    }
    if (h.raw > limits.max_image_bytes)
        return error{errc::too_large, at_byte(name, scan.pos + 24) + "chunk declares " + std::to_string(h.raw) +
                                          " raw bytes, over the limit"};
    return h;
}

result<void> replay_reader::impl::take_keyframe(chunk_scan &scan, const chunk_header &h) {
    const std::uint64_t pos = scan.pos;
    if (h.frame > max_frame)
        return {errc::corrupt, at_byte(name, pos + 8) + "keyframe for frame " + std::to_string(h.frame) +
                                   ", beyond the 32-bit frame range"};
    if (h.frame != scan.expected_frame)
        return {errc::corrupt, at_byte(name, pos + 8) + "keyframe for frame " + std::to_string(h.frame) +
                                   " where frame " + std::to_string(scan.expected_frame) + " was expected"};
    if (h.frame != keyframe_due(keyframes.size()))
        return {errc::corrupt, at_byte(name, pos + 8) + "keyframe " + std::to_string(keyframes.size()) + " for frame " +
                                   std::to_string(h.frame) + "; the keyframe interval " +
                                   std::to_string(settings.keyframe_interval) + " puts it at frame " +
                                   std::to_string(keyframe_due(keyframes.size()))};
    if (keyframes.empty() && h.kind != chunk_kind::full_keyframe)
        return {errc::corrupt, at_byte(name, pos) + "the first keyframe must be a full image"};
    if (h.count != 1)
        return {errc::corrupt, at_byte(name, pos + 16) + "keyframe chunk with count " + std::to_string(h.count)};
    // Format 2 defines byte planes for full keyframes; a delta is always the XOR delta.
    const bool full = h.kind == chunk_kind::full_keyframe;
    if (h.codec > (version >= 2 && full ? 1 : 0))
        return {errc::corrupt, at_byte(name, pos + 5) + "keyframe codec " + std::to_string(h.codec) +
                                   " is not one format " + std::to_string(version) + " defines for a " +
                                   (full ? "full" : "delta") + " keyframe"};
    const auto codec_of = static_cast<keyframe_codec>(h.codec);
    // A planes keyframe's raw payload is the pool map, then the image.
    const std::size_t map = codec_of == keyframe_codec::planes ? internal::keyframe_planes::map_bytes(pools) : 0;
    if (h.raw < map)
        return {errc::corrupt, at_byte(name, pos + 24) + "keyframe of " + std::to_string(h.raw) +
                                   " raw bytes, shorter than its pool map"};
    keyframes.push_back(replay_keyframe{static_cast<frame_t>(h.frame), full, pos, h.stored,
                                        static_cast<std::uint32_t>(h.raw - map), codec_of});
    return {};
}

/// A frames chunk's frame range, before it is decoded.
result<void> replay_reader::impl::check_frames_range(const chunk_scan &scan, const chunk_header &h) const {
    const std::uint64_t pos = scan.pos;
    const std::uint64_t first = scan.expected_frame;
    if (keyframes.empty()) return {errc::corrupt, at_byte(name, pos) + "frames before the starting keyframe"};
    if (h.frame != first)
        return {errc::corrupt, at_byte(name, pos + 8) + "frames chunk starts at frame " + std::to_string(h.frame) +
                                   ", expected " + std::to_string(first)};
    if (h.count == 0 || h.count > settings.frames_per_chunk || std::uint64_t{h.count} * record != h.raw)
        return {errc::corrupt, at_byte(name, pos + 16) + "frames chunk declares " + std::to_string(h.count) +
                                   " frames in " + std::to_string(h.raw) + " bytes"};
    if (first + h.count - 1u > max_frame)
        return {errc::corrupt, at_byte(name, pos + 16) + "frames chunk runs to frame " +
                                   std::to_string(first + h.count - 1u) + ", beyond the 32-bit frame range"};
    // The writer closes a frames chunk where a keyframe is due, so no chunk runs past the next
    // keyframe's frame (a keyframe left out shows here).
    if (const auto next_keyframe = keyframe_due(keyframes.size()); first + h.count > next_keyframe)
        return {errc::corrupt, at_byte(name, pos + 16) + "frames chunk runs to frame " +
                                   std::to_string(first + h.count - 1u) + ", past the keyframe due at frame " +
                                   std::to_string(next_keyframe) + " (keyframe interval " +
                                   std::to_string(settings.keyframe_interval) + ")"};
    if (records.size() + h.raw > limits.max_image_bytes)
        return {errc::too_large, at_byte(name, pos) + "decoded frames exceed the limit"};
    return {};
}

result<void> replay_reader::impl::take_frames(chunk_scan &scan, const chunk_header &h) {
    if (auto r = check_frames_range(scan, h); !r) return r;
    if (auto sized = check_chunk_size(scan.pos, h.raw); !sized) return sized;
    scan.raw.resize(h.raw);
    if (auto d = decode_chunk(scan.pos, scan.raw); !d) return d;
    for (std::uint32_t k = 0; k < h.count; ++k) {
        const frame_inputs in{static_cast<frame_t>(scan.expected_frame + k), settings.players, settings.input_size,
                              scan.raw.data() + std::size_t{k} * record};
        if (const std::size_t slot = in.first_unknown_flags(); slot != in.players())
            return {errc::corrupt, at_byte(name, scan.pos) + "frame " + std::to_string(in.frame()) +
                                       " has unknown flag bits for slot " + std::to_string(slot)};
    }
    records.insert(records.end(), scan.raw.begin(), scan.raw.end());
    scan.expected_frame += h.count;
    frame_count += h.count;
    return {};
}

/// The seek index and the trailer after it; the scan ends here either way.
result<void> replay_reader::impl::take_index(chunk_scan &scan, const chunk_header &h) {
    const std::uint64_t pos = scan.pos;
    const std::uint64_t end = pos + internal::chunk_header_size + h.stored;
    // Its header is intact (the header check passed), so its frame and count are checked even
    // when the trailer after it is cut off.
    if (h.frame != scan.expected_frame)
        return {errc::corrupt, at_byte(name, pos + 8) + "seek index says the frames end at frame " +
                                   std::to_string(h.frame) + "; the chunks end at frame " +
                                   std::to_string(scan.expected_frame)};
    if (h.count != scan.chunks.size())
        return {errc::corrupt, at_byte(name, pos + 16) + "seek index declares " + std::to_string(h.count) +
                                   " entries; " + std::to_string(scan.chunks.size()) + " chunks precede it"};
    scan.done = true;
    if (bytes.size() - end < internal::trailer_size) {
        // The writer stopped between the seek index and the trailer: the chunks before the
        // index are intact, so this reads like any other cut-short file.
        truncation = "file ends inside the trailer at byte " + std::to_string(end);
        scan.pos = bytes.size();
        return {};
    }
    if (auto sized = check_chunk_size(pos, h.raw); !sized) return sized;
    scan.raw.resize(h.raw);
    if (auto d = decode_chunk(pos, scan.raw); !d) return d;
    if (!internal::index_lists(scan.raw, scan.chunks))
        return {errc::corrupt, at_byte(name, pos) + "seek index disagrees with the chunks in the file"};
    if (bytes.size() - end != internal::trailer_size)
        return {errc::corrupt, at_byte(name, end) + "expected the 16-byte trailer after the seek index"};
    const auto t = internal::read_trailer(chunk_at(end));
    if (t.magic != internal::trailer_magic || t.index_offset != pos || t.reserved != 0)
        return {errc::corrupt, at_byte(name, end) + "bad trailer"};
    complete = true;
    scan.pos = bytes.size();
    return {};
}

replay_reader::replay_reader(std::unique_ptr<impl> p) noexcept : impl_{std::move(p)} {}
replay_reader::replay_reader(replay_reader &&) noexcept = default;
replay_reader &replay_reader::operator=(replay_reader &&) noexcept = default;
replay_reader::~replay_reader() = default;

// ============================================================================ decoding

/// Checks that the zstd frame of the chunk at @p offset declares @p raw bytes, before a buffer of
/// that size is allocated (a forged raw size must not allocate up to the limit).
result<void> replay_reader::impl::check_chunk_size(std::uint64_t offset, std::size_t raw) const {
    const auto at = chunk_at(offset);
    const chunk_header h = internal::read_chunk_header(at);
    return internal::check_content_size(internal::chunk_payload(at, h), raw,
                                        at_byte(name, offset + internal::chunk_header_size) + "chunk");
}

/// Decompresses the chunk at @p offset into @p raw and checks its checksum.
result<void> replay_reader::impl::decode_chunk(std::uint64_t offset, std::span<std::byte> raw) const {
    const auto at = chunk_at(offset);
    const chunk_header h = internal::read_chunk_header(at);
    if (auto d = codec.decompress(internal::chunk_payload(at, h), raw,
                                  at_byte(name, offset + internal::chunk_header_size) + "chunk");
        !d)
        return d;
    if (!internal::chunk_checksum_matches(at, h, raw))
        return {errc::checksum, at_byte(name, offset) + "chunk checksum mismatch"};
    return {};
}

result<void> replay_reader::impl::keyframe_image(std::size_t index, world_image &out) const {
    if (auto r = decode_keyframe(index); !r) return r;
    out = cached;
    return {};
}

result<void> replay_reader::impl::decode_keyframe(std::size_t index) const {
    if (index >= keyframes.size()) return {errc::not_found, name + ": no keyframe " + std::to_string(index)};
    if (cached_index == index) return {};
    std::size_t first = index;
    while (!keyframes[first].full) --first; // the scan guarantees keyframe 0 is full
    if (cached_index != ~std::size_t{0} && cached_index <= index && cached_index >= first) first = cached_index;
    else if (auto r = load_full_keyframe(first); !r)
        return r;
    for (std::size_t i = first + 1; i <= index; ++i) // deltas, each against the one before
        if (auto r = apply_delta_keyframe(i); !r) return r;
    return {};
}

result<void> replay_reader::impl::load_full_keyframe(std::size_t index) const {
    const auto &k = keyframes[index];
    if (k.codec == keyframe_codec::zstd) {
        if (auto r = check_chunk_size(k.offset, k.image_bytes); !r) return forget_cache(std::move(r));
        if (auto r = decode_chunk(k.offset, {cached.prepare(k.image_bytes), k.image_bytes}); !r)
            return forget_cache(std::move(r));
    } else {
        const std::size_t raw = k.image_bytes + internal::keyframe_planes::map_bytes(pools);
        if (auto r = check_chunk_size(k.offset, raw); !r) return forget_cache(std::move(r));
        transposed.resize(raw);
        if (auto r = decode_chunk(k.offset, transposed); !r) return forget_cache(std::move(r));
        if (!planes.decode(transposed, pools, {cached.prepare(k.image_bytes), k.image_bytes}))
            return forget_cache({errc::corrupt, at_byte(name, k.offset) + "keyframe's byte planes do not add up to "
                                                                          "the image its header describes"});
    }
    cached_index = index;
    return check_image(index);
}

result<void> replay_reader::impl::apply_delta_keyframe(std::size_t index) const {
    const auto &k = keyframes[index];
    if (auto r = check_chunk_size(k.offset, k.image_bytes); !r) return forget_cache(std::move(r));
    delta_bytes.resize(k.image_bytes);
    if (auto r = decode_chunk(k.offset, delta_bytes); !r) return forget_cache(std::move(r));
    if (!delta.decode(delta_bytes, cached.bytes(), {next.prepare(k.image_bytes), k.image_bytes}))
        return forget_cache(
            {errc::corrupt, at_byte(name, k.offset) + "delta keyframe does not fit the previous keyframe"});
    std::swap(cached, next);
    cached_index = index;
    return check_image(index);
}

result<void> replay_reader::impl::check_image(std::size_t index) const {
    const world probe{sch};
    const auto &k = keyframes[index];
    if (auto v = validate_image(probe, cached.bytes()); !v)
        return forget_cache({v.code(), at_byte(name, k.offset) + "keyframe: " + v.message()});
    if (cached.header().frame != k.frame)
        return forget_cache({errc::corrupt, at_byte(name, k.offset) + "keyframe image says frame " +
                                                std::to_string(cached.header().frame) + ", chunk says " +
                                                std::to_string(k.frame)});
    return {};
}

// ============================================================================ queries

const retcon::schema &replay_reader::schema() const noexcept { return impl_->sch; }
const replay_settings &replay_reader::settings() const noexcept { return impl_->settings; }
frame_t replay_reader::start_frame() const noexcept { return impl_->start_frame; }
std::uint32_t replay_reader::frame_count() const noexcept { return impl_->frame_count; }
bool replay_reader::complete() const noexcept { return impl_->complete; }
const std::string &replay_reader::truncation_note() const noexcept { return impl_->truncation; }
const std::string &replay_reader::name() const noexcept { return impl_->name; }
std::uint64_t replay_reader::file_bytes() const noexcept { return impl_->bytes.size(); }
std::uint16_t replay_reader::format_version() const noexcept { return impl_->version; }

const std::byte *replay_reader::impl::record_of(frame_t frame, const char *what) const {
    if (frame < start_frame || frame - start_frame >= frame_count)
        internal::misuse("replay_reader::%s: frame %u is outside the replay's frames [%u, %u)", what, frame,
                         start_frame, start_frame + frame_count);
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

std::size_t replay_reader::keyframe_at_or_before(frame_t frame) const noexcept {
    // The scan checked that keyframe j is at start + j·K.
    const auto &ks = impl_->keyframes;
    if (ks.empty() || frame < impl_->start_frame) return ks.size();
    const std::size_t j = (frame - impl_->start_frame) / impl_->settings.keyframe_interval;
    return std::min(j, ks.size() - 1);
}

result<void> replay_reader::keyframe_image(std::size_t index, world_image &out) const {
    return impl_->keyframe_image(index, out);
}

result<frame_t> replay_reader::restore_keyframe(world &w, frame_t frame) const {
    if (auto s = check_simulation(impl_->sch); !s) return error{s.code(), impl_->name + ": " + s.message()};
    if (w.schema_hash() != impl_->sch.hash())
        return error{errc::schema_mismatch, impl_->name + ": the world's schema differs from the replay's"};
    const auto &ks = impl_->keyframes;
    const std::size_t best = keyframe_at_or_before(frame);
    if (best == ks.size())
        return error{errc::not_found, impl_->name + ": no keyframe at or before frame " + std::to_string(frame)};
    // Restored straight from the decoding cache: a seek copies the image once.
    if (auto r = impl_->decode_keyframe(best); !r) return r.err();
    if (auto r = restore(w, impl_->cached); !r) return r.err();
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

} // namespace retcon
