#ifndef RETCON_SNAPSHOT_REPLAY_HPP
#define RETCON_SNAPSHOT_REPLAY_HPP

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <retcon/ecs/frame.hpp>
#include <retcon/ecs/schema.hpp>
#include <retcon/ecs/step.hpp>
#include <retcon/ecs/world.hpp>

#include "error.hpp"
#include "file.hpp"
#include "hash.hpp"
#include "image.hpp"

namespace retcon {

class replay_encoder;

/// @brief "RCRP" read as a little-endian u32: a replay file.
inline constexpr std::uint32_t replay_file_magic = 0x50524352u;
/// @brief Current replay file format version: 2 adds the keyframe codec byte (docs/file-format.md,
/// "Keyframe codecs"). Readers also read version 1.
inline constexpr std::uint16_t replay_file_version = 2;

/// @brief How a replay's keyframes are compressed (docs/file-format.md, "Keyframe codecs"). Each
/// keyframe chunk names its own, so a reader needs no setting to read it.
enum class keyframe_codec : std::uint8_t {
    zstd = 0,   ///< zstd of the image (or of the XOR delta): format 1's only codec
    planes = 1, ///< the fixed-width sections transposed into byte planes, then zstd
};

/// @brief How a replay is laid out; fixed when it is created.
struct replay_settings {
    std::uint32_t players = 1;              ///< player slots per frame
    std::uint32_t input_size = 4;           ///< bytes of one player's input
    std::uint32_t tick_hz = 60;             ///< informational
    std::uint32_t keyframe_interval = 120;  ///< frames between keyframes
    std::uint32_t full_keyframe_every = 10; ///< every Mth keyframe is full; the others are deltas
    std::uint32_t frames_per_chunk = 60;    ///< frames buffered before a chunk is written
    int level = 3;                          ///< zstd level
    /// @brief How keyframes are compressed. Not a header field: each keyframe chunk names its
    /// codec, and a reader reports the default here.
    retcon::keyframe_codec keyframe_codec = retcon::keyframe_codec::planes;
    /// @brief Free-form key/value metadata (game name, version, player names...).
    std::vector<std::pair<std::string, std::string>> metadata{};
    /// @brief Not part of the file: the thread that compresses and writes the writer's chunks
    /// (a match host's, shared by its matches). Null: the writer's own thread does, as each
    /// call returns. The file's bytes are the same either way.
    std::shared_ptr<replay_encoder> encoder{};
};

/**
 * @brief Writes a replay file as a stream of self-checking chunks.
 *
 * The file starts with a header, the schema block and metadata, then a full keyframe of the
 * starting world. Every frame appends its `frame_inputs` record (each player's `slot_flags`,
 * then each player's input) plus the hash of the world after that frame; frames are flushed in chunks. Every `keyframe_interval` frames a
 * keyframe is written: a full image every `full_keyframe_every` keyframes, otherwise the XOR
 * against the previous keyframe aligned section by section (a changed pool size does not
 * misalign the others), zstd-compressed. With `keyframe_codec::planes` (the default) a full
 * image is stored in byte planes, and also where a delta is due if it compresses smaller.
 * `finish` writes a seek index and a trailer. A writer killed mid-way leaves a file readable up
 * to its last complete chunk.
 *
 * With `replay_settings::encoder` the chunks are compressed and written by the encoder's thread,
 * in the order the writer hands them off (the same bytes): `create`, `add_frame` and the
 * destructor queue their work, an error comes back from the next `add_frame`, `flush` or
 * `finish`, and `flush` and `finish` return once the writer's queued work is written.
 */
class replay_writer {
public:
    /// @brief Creates @p path and writes the header and the starting keyframe of @p start
    /// (the state before frame @p start_frame is simulated). A replay is never overwritten: a
    /// @p path that exists is an `errc::io` error saying so, and is left untouched.
    static result<replay_writer> create(const std::filesystem::path &path, const world &start, frame_t start_frame,
                                        replay_settings settings);

    replay_writer(replay_writer &&) noexcept;
    replay_writer &operator=(replay_writer &&) noexcept;
    ~replay_writer();

    /**
     * @brief Appends the next frame: @p in is the frame's confirmed inputs (as handed to the
     * step), @p after the world after simulating it. The writer hashes @p after (or uses
     * @p known, the hash the caller already computed) and writes a keyframe when one is due.
     *
     * `in.players()` and `in.input_size()` must equal the settings and `in.frame()` must be
     * `next_frame()`; otherwise nothing is written and the result is `errc::invalid_argument`.
     * A world of another schema is `errc::schema_mismatch`.
     */
    result<void> add_frame(const frame_inputs &in, const world &after, std::optional<hash64> known = std::nullopt);

    /// @brief Writes buffered frames as a chunk and fsyncs (a crash after this loses nothing).
    result<void> flush();
    /// @brief Flushes, writes the seek index and trailer, and closes the file.
    result<void> finish();

    /// @brief The frame add_frame expects next.
    [[nodiscard]] frame_t next_frame() const noexcept;
    /// @brief Bytes written so far (with an encoder, what its thread has written).
    [[nodiscard]] std::uint64_t bytes_written() const noexcept;

private:
    struct impl;
    explicit replay_writer(std::unique_ptr<impl> p) noexcept;
    std::unique_ptr<impl> impl_;
};

/// @brief One keyframe listed by a replay reader.
struct replay_keyframe {
    frame_t frame = 0;                           ///< the state at the start of this frame
    bool full = false;                           ///< full image (else a delta against the previous keyframe)
    std::uint64_t offset = 0;                    ///< file offset of its chunk
    std::uint32_t stored_bytes = 0;              ///< compressed size
    std::uint32_t image_bytes = 0;               ///< uncompressed image size
    keyframe_codec codec = keyframe_codec::zstd; ///< how it is compressed
};

/**
 * @brief Reads a replay file, treating it as hostile.
 *
 * Opening validates the header, schema and metadata, scans every chunk header, and decodes and
 * checksums every frame chunk; keyframes are decoded on demand (or all of them by `check`). A
 * file cut short (a crashed writer) is readable up to its last complete chunk and reports
 * `complete() == false`.
 *
 * Frame ranges are validated before any frame number is used (docs/file-format.md, "Frame
 * ranges"): the file stores 64-bit frame numbers and one beyond `max_frame` is
 * `errc::corrupt`; frames run from the start frame without gaps; keyframe j is at frame
 * start + j·K (K the keyframe interval) and no frames chunk runs past the next keyframe's
 * frame; the seek index's frame and entry count equal the end of the frames and the chunks
 * before it. So `start_frame() + frame_count()` never wraps: `end_frame()` is at most
 * `no_frame` (one past `max_frame`). Each error names the file, the byte offset and the field.
 */
class replay_reader {
public:
    /// @brief Opens and validates @p path.
    static result<replay_reader> open(const std::filesystem::path &path, const read_limits &limits = {});
    /// @brief The same over bytes in memory; @p name is used in messages.
    static result<replay_reader> parse(std::vector<std::byte> bytes, const std::string &name,
                                       const read_limits &limits = {});

    replay_reader(replay_reader &&) noexcept;
    replay_reader &operator=(replay_reader &&) noexcept;
    ~replay_reader();

    [[nodiscard]] const retcon::schema &schema() const noexcept;
    [[nodiscard]] const replay_settings &settings() const noexcept;
    /// @brief First frame with inputs (the starting keyframe's frame).
    [[nodiscard]] frame_t start_frame() const noexcept;
    /// @brief Number of frames with inputs.
    [[nodiscard]] std::uint32_t frame_count() const noexcept;
    /// @brief One past the last frame with inputs.
    [[nodiscard]] frame_t end_frame() const noexcept { return start_frame() + frame_count(); }
    /// @brief True if the file ends with a valid seek index and trailer (the writer finished).
    [[nodiscard]] bool complete() const noexcept;
    /// @brief If not complete, where the readable part ends and why.
    [[nodiscard]] const std::string &truncation_note() const noexcept;
    [[nodiscard]] std::uint64_t file_bytes() const noexcept;
    /// @brief The name used in messages: the path given to `open`, or `parse`'s @p name.
    [[nodiscard]] const std::string &name() const noexcept;
    /// @brief The file's format version (1 or `replay_file_version`).
    [[nodiscard]] std::uint16_t format_version() const noexcept;

    /// @brief The confirmed inputs of @p frame, exactly as recorded (valid while the reader
    /// lives). A frame outside [start_frame, end_frame) is misuse.
    [[nodiscard]] frame_inputs inputs(frame_t frame) const;
    /// @brief Hash of the world after simulating @p frame. A frame outside
    /// [start_frame, end_frame) is misuse.
    [[nodiscard]] hash64 hash(frame_t frame) const;

    /// @brief Keyframes, in frame order.
    [[nodiscard]] std::span<const replay_keyframe> keyframes() const noexcept;
    /**
     * @brief The seek index: the position in `keyframes()` of the latest keyframe at or before
     * @p frame, or `keyframes().size()` if there is none (a frame before the start). Keyframe j is
     * at start + j·K, so this is a division, not a search. Everything that seeks (restore_keyframe,
     * `retcon dump --frame`, the replay viewer) goes through it.
     */
    [[nodiscard]] std::size_t keyframe_at_or_before(frame_t frame) const noexcept;
    /// @brief Decodes keyframe @p index (resolving deltas) into @p out.
    result<void> keyframe_image(std::size_t index, world_image &out) const;
    /// @brief Restores the latest keyframe at or before @p frame into @p w; returns its frame.
    /// A replay of another simulation semantics is errc::bad_version (`check_simulation`), a
    /// world of another schema errc::schema_mismatch.
    result<frame_t> restore_keyframe(world &w, frame_t frame) const;

    /// @brief Decodes every keyframe and checks every checksum, and that each keyframe's world
    /// hash equals the hash recorded for the frame before it. Calls @p progress(done, total).
    /// An error names the file, the byte offset and the keyframe ("(keyframe i, frame F)").
    result<void> check(const std::function<void(std::size_t, std::size_t)> &progress = {}) const;

private:
    struct impl;
    explicit replay_reader(std::unique_ptr<impl> p) noexcept;
    std::unique_ptr<impl> impl_;
};

/// @brief What `verify` found: a report exists only for a replay that could be verified (see
/// `verify`), so `ok()` means every frame the reader holds was re-simulated to its recorded hash.
struct verify_report {
    /// Frames re-simulated: `reader.frame_count()` if ok(), else up to and including the first
    /// mismatch.
    std::uint64_t frames_checked = 0;
    std::optional<frame_t> first_mismatch{}; ///< first frame whose hash differs
    hash64 expected = 0;                     ///< recorded hash of that frame
    hash64 actual = 0;                       ///< hash after re-simulating it
    /// @brief Sections that differ at the first keyframe after the mismatch (if one exists).
    std::vector<std::string> diverging{};
    [[nodiscard]] bool ok() const noexcept { return !first_mismatch; }
};

/**
 * @brief Re-simulates the replay from its starting keyframe with the game's own @p step (the
 * one its sessions run) and compares every frame's hash with the recorded one. @p w must be a
 * world of the game's own schema (built from the game's types, so the step can use them)
 * whose hash equals the replay's; a world built from `reader.schema()` alone has no typed
 * access.
 *
 * What fails is an error, not a report: a replay recorded with another simulation semantics
 * (`errc::bad_version`, named by `check_simulation`, instead of a mismatch at some frame); a
 * world of another schema (`errc::schema_mismatch`);
 * an incomplete replay with no readable frame (`errc::truncated`: nothing would be verified);
 * any damage `check()` finds, since every keyframe is decoded and checked first, whether or not
 * re-simulation passes it (`errc::checksum`, `errc::corrupt`, `errc::decompress`, ...); and,
 * as a guard, a walk that re-simulated fewer frames than the reader holds without a mismatch
 * (`errc::corrupt`). A report whose `ok()` is false has `first_mismatch` set.
 *
 * A complete replay of zero frames verifies with `frames_checked == 0`. For an incomplete
 * replay (`reader.complete() == false`) the frames that are readable are verified; whoever
 * vouches for the whole recording checks `complete()` too, as `retcon check` does.
 */
result<verify_report> verify(const replay_reader &reader, world &w, const step_function &step);

} // namespace retcon

#endif
