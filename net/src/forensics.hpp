#ifndef RETCON_NET_SRC_FORENSICS_HPP
#define RETCON_NET_SRC_FORENSICS_HPP

#include <retcon/ecs/frame.hpp>
#include <retcon/ecs/step.hpp>
#include <retcon/ecs/world.hpp>
#include <retcon/net/protocol.hpp>
#include <retcon/snapshot/diff.hpp>
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/image.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frame_ring.hpp"

// Desync forensics, the part every side shares (docs/net.md, "Desync forensics" and "Sync
// test"): images of the world kept after checksum frames, so a mismatch found later can still be
// compared, and one way of naming what diverged between two images. The client keeps the images
// it may be asked to upload (checksum_reports); the server keeps the images it compares uploads
// with (checksum_record) and names the difference for both players; the sync test names the
// difference between a first run and its re-simulation (name_divergence).

namespace retcon::internal {

/// @brief The hash of @p step's stage count and stage names: two sides that run different
/// schedules differ here, and their stage lists cannot be compared stage by stage.
[[nodiscard]] std::uint64_t stage_names_hash(const step_function &step);

/// @brief True if desync bisection can re-run @p step stage by stage outside a tick: it is not
/// `requests_only` and a stage list can carry its stages.
[[nodiscard]] inline bool can_bisect(const step_function &step) noexcept {
    return step && step.can_rerun() && step.stages() <= wire::limits::max_stages;
}

/**
 * @brief Runs one frame of @p w with @p step stage by stage (docs/net.md, "Desync forensics"),
 * recording in @p out the hash of the world at the start and after each stage;
 * `on_stage(point, w)` sees the world at each point (`wire::stage_start`, then each stage's
 * index) so a caller can keep an image of it.
 */
template<class OnStage>
void run_staged(world &w, const step_function &step, const frame_inputs &in, wire::stage_hashes &out,
                OnStage &&on_stage) {
    out.names = stage_names_hash(step);
    out.start = hash(w);
    out.after.clear();
    on_stage(wire::stage_start, static_cast<const world &>(w));
    step.run(w, in, [&](std::size_t i, std::string_view) {
        out.after.push_back(hash(w));
        on_stage(static_cast<std::uint8_t>(i), static_cast<const world &>(w));
    });
}

/// @brief The first point where two stage lists differ: `wire::stage_start` if the starts do,
/// else the first stage whose hash does, else `wire::stage_none`. Lists of different schedules
/// (`names`) are not compared: `stage_none`.
[[nodiscard]] std::uint8_t first_difference(const wire::stage_hashes &a, const wire::stage_hashes &b) noexcept;

/// @brief Images of the world after some frames, in a fixed number of slots: the storage under
/// `checksum_reports` and `checksum_record`.
class kept_images {
public:
    /// @brief Room for @p count images, all empty.
    void reset(std::size_t count) {
        images_.resize(count);
        frames_.assign(count, no_frame);
    }
    [[nodiscard]] std::size_t size() const noexcept { return images_.size(); }

    /// @brief Keeps the image of the world after @p frame in slot @p index (modulo the size):
    /// `fill(image)` writes it (`save(w, image, frame + 1)`: an image holds the world at the start
    /// of the next frame). The slot's previous image is forgotten first, so if `fill` throws the
    /// slot holds nothing rather than an image under the wrong frame. Returns the image.
    template<class Fill>
    const world_image &keep(std::size_t index, frame_t frame, Fill &&fill) {
        index %= images_.size();
        frames_[index] = no_frame;
        fill(images_[index]);
        frames_[index] = frame;
        return images_[index];
    }

    /// @brief The image of the world after @p frame, or null if not kept (`no_frame`, the mark
    /// of an empty slot, is never kept).
    [[nodiscard]] const world_image *after(frame_t frame) const noexcept {
        if (frame == no_frame) return nullptr;
        for (std::size_t i = 0; i < images_.size(); ++i)
            if (frames_[i] == frame) return &images_[i];
        return nullptr;
    }

    /// @brief The newest image of the world after a frame at or before @p frame, and that frame
    /// in @p at; null if none is kept.
    [[nodiscard]] const world_image *newest_at_or_before(frame_t frame, frame_t &at) const noexcept {
        const world_image *best = nullptr;
        for (std::size_t i = 0; i < images_.size(); ++i)
            if (frames_[i] != no_frame && frames_[i] <= frame && (!best || frames_[i] > at)) {
                best = &images_[i];
                at = frames_[i];
            }
        return best;
    }

private:
    std::vector<world_image> images_;
    std::vector<frame_t> frames_;
};

/// @brief The most images a client keeps (`client_options::forensic_ms`).
inline constexpr std::size_t max_forensic_images = 64;

/// @brief How many images a client keeps to cover @p forensic_ms of play at @p tick_hz with a
/// checksum every @p checksum_interval frames (docs/net.md, "Desync forensics"):
/// ceil(forensic_ms / tick period / checksum_interval), from 1 to `max_forensic_images`.
/// Without checksums (interval 0) none is ever kept: 1.
[[nodiscard]] constexpr std::size_t forensic_images(std::uint32_t forensic_ms, std::uint32_t tick_hz,
                                                    std::uint32_t checksum_interval) noexcept {
    if (checksum_interval == 0) return 1;
    // In whole numbers: ms / (1000 / hz) / interval = ms * hz / (1000 * interval).
    const std::uint64_t per = std::uint64_t{1000} * checksum_interval;
    const std::uint64_t n = (std::uint64_t{forensic_ms} * tick_hz + per - 1u) / per;
    return static_cast<std::size_t>(n < 1u ? 1u : (n > max_forensic_images ? max_forensic_images : n));
}

/**
 * @brief The client's side of checksums (docs/net.md, "Desync forensics"): the hash of the world
 * after each confirmed checksum frame, reported to the server in the next three input messages
 * (a lost packet does not lose it), and the image behind it kept for an upload the server may
 * ask for.
 */
class checksum_reports {
public:
    /// @brief Checksums every @p interval frames (0: none), keeping the last @p images images
    /// and the confirmed input records (@p record_size bytes) of their frames.
    void reset(std::uint32_t interval, std::size_t images, std::size_t record_size = 0) {
        interval_ = interval;
        kept_.reset(images);
        record_size_ = record_size;
        records_.assign(images * record_size, std::byte{0});
        record_frames_.assign(images, no_frame);
    }
    /// @brief A snapshot was loaded at @p frame: checksums resume there.
    void restart(frame_t frame) noexcept { next_ = frame; }

    /**
     * @brief Hashes every checksum frame not yet hashed that is confirmed (before
     * @p confirmed_end) and simulated (before @p current, the frame @p w is at). The world after
     * frame f is @p w itself if f + 1 is @p current, else `start_of(f + 1)`, the image the
     * rollback saved at the start of f + 1 (null if no longer held: f is then skipped).
     * `on_hash(f, h)` hears each hash. `record_of(f)` gives f's confirmed input record (or
     * null), kept with f's image: desync bisection re-runs the frame after it from there, and a
     * resync snapshot may have cleared the input queue by the time it is asked to.
     */
    template<class StartOf, class OnHash>
    void advance(frame_t confirmed_end, const world &w, frame_t current, StartOf &&start_of, OnHash &&on_hash) {
        advance(confirmed_end, w, current, start_of, on_hash, [](frame_t) -> const std::byte * { return nullptr; });
    }
    /// @brief As above, keeping each checksum frame's confirmed record from `record_of`.
    template<class StartOf, class OnHash, class RecordOf>
    void advance(frame_t confirmed_end, const world &w, frame_t current, StartOf &&start_of, OnHash &&on_hash,
                 RecordOf &&record_of) {
        if (interval_ == 0) {
            next_ = confirmed_end;
            return;
        }
        for (; next_ < confirmed_end && next_ + 1u <= current; ++next_) {
            const frame_t f = next_;
            if (f % interval_ != 0) continue;
            const world_image *start_of_next = f + 1u == current ? nullptr : start_of(f + 1u);
            if (f + 1u != current && !start_of_next) continue;
            const world_image &kept = kept_.keep(f / interval_, f, [&](world_image &image) {
                if (start_of_next) image = *start_of_next;
                else
                    save(w, image, f + 1u);
            });
            if (record_size_ != 0) {
                const std::size_t slot = (f / interval_) % record_frames_.size();
                const std::byte *r = record_of(f);
                record_frames_[slot] = r ? f : no_frame;
                if (r) std::memcpy(records_.data() + slot * record_size_, r, record_size_);
            }
            pending_frame_ = f;
            pending_ = hash(kept);
            sends_ = 3;
            on_hash(f, pending_);
        }
    }

    /// @brief The report for the next input message: the frame and hash to send three times,
    /// or false when there is none. Each call uses one of the three.
    bool next_report(frame_t &frame, std::uint64_t &h) noexcept {
        if (sends_ == 0) return false;
        --sends_;
        frame = pending_frame_;
        h = pending_;
        return true;
    }

    /// @brief The image of the world after @p frame, if still kept (for an upload).
    [[nodiscard]] const world_image *image_after(frame_t frame) const noexcept { return kept_.after(frame); }
    /// @brief The confirmed input record of checksum frame @p frame, if still kept.
    [[nodiscard]] const std::byte *record(frame_t frame) const noexcept {
        if (frame == no_frame) return nullptr;
        for (std::size_t i = 0; i < record_frames_.size(); ++i)
            if (record_frames_[i] == frame) return records_.data() + i * record_size_;
        return nullptr;
    }

private:
    std::uint32_t interval_ = 0;
    std::size_t record_size_ = 0;
    std::vector<std::byte> records_;     // record_size_ bytes per slot, like the images
    std::vector<frame_t> record_frames_; // the frame each slot's record is of
    kept_images kept_;
    frame_t next_ = 0;
    frame_t pending_frame_ = no_frame;
    std::uint64_t pending_ = 0;
    int sends_ = 0;
};

/**
 * @brief The server's record of its own checksum frames, to verify a client's claim of a
 * mismatch (docs/net.md, "Desync forensics"): the hash of the world after each checksum frame
 * among the last `hash_frames` frames, and an image of the world after every `image_every`-th
 * checksum frame; the world after any checksum frame in between is rebuilt from the image before
 * it by re-simulating the confirmed inputs, on a world of its own created at the first rebuild.
 */
class checksum_record {
public:
    /// @brief @p images kept images, one every @p image_every checksum frames; hashes of the
    /// last @p hash_frames frames.
    void reset(std::size_t images, std::uint32_t image_every, std::size_t hash_frames = 1024) {
        kept_.reset(images);
        image_every_ = image_every;
        hashes_.reset(hash_frames, sizeof(std::uint64_t));
    }

    /// @brief @p w is the world after checksum frame @p frame, the @p n -th checksum frame, whose
    /// hash is @p h.
    void note(const world &w, frame_t frame, std::uint64_t n, std::uint64_t h) {
        std::memcpy(hashes_.put(frame), &h, sizeof h);
        if (n % image_every_ == 0)
            kept_.keep(static_cast<std::size_t>(n / image_every_), frame,
                       [&](world_image &image) { save(w, image, frame + 1u); });
    }

    /// @brief The hash recorded after @p frame, if it was a checksum frame still held.
    [[nodiscard]] std::optional<std::uint64_t> hash_after(frame_t frame) const noexcept {
        const std::byte *h = hashes_.get(frame);
        if (!h) return std::nullopt;
        std::uint64_t v;
        std::memcpy(&v, h, sizeof v);
        return v;
    }

    /// @brief The kept image a rebuild of the world after @p frame starts from: the newest one at
    /// or before it, if @p inputs (the confirmed records) still hold every frame after it up to
    /// @p frame. Null when there is none: the server no longer holds that frame.
    [[nodiscard]] const world_image *base_for(frame_t frame, const frame_ring &inputs) const noexcept {
        frame_t from = 0;
        const world_image *base = kept_.newest_at_or_before(frame, from);
        if (!base) return nullptr;
        for (frame_t g = from + 1u; g <= frame; ++g)
            if (!inputs.has(g)) return nullptr;
        return base;
    }

    /// @brief The world after @p frame: a kept image, or one rebuilt with @p step from the kept
    /// image before it and the confirmed records in @p inputs (@p players slots of @p input_size
    /// bytes), checked against the hash recorded for @p frame. Null, with the reason in @p why,
    /// when it cannot. @p schema is the live world's. The image is valid until the next call of
    /// `image_after`, `note` or `reset`.
    const world_image *image_after(frame_t frame, const schema &schema, const frame_ring &inputs,
                                   const step_function &step, std::size_t players, std::size_t input_size,
                                   std::string &why);

    /// @brief Desync bisection's re-run of @p frame (docs/net.md, "Desync forensics"): rebuilds
    /// the world after frame - 1 as `image_after` does, runs @p frame with `run_staged` (its
    /// hashes in @p out, `on_stage(point, w)` at each point) and checks the result against the
    /// hash recorded for @p frame. False, with the reason in @p why, when it cannot.
    bool run_frame(frame_t frame, const schema &schema, const frame_ring &inputs, const step_function &step,
                   std::size_t players, std::size_t input_size, wire::stage_hashes &out,
                   const std::function<void(std::uint8_t, const world &)> &on_stage, std::string &why);

private:
    kept_images kept_;
    std::uint32_t image_every_ = 1;
    frame_ring hashes_;
    std::optional<world> rebuild_world_;
    world_image rebuilt_;
};

/// @brief What differs between two images of one frame, named two ways from one walk of the
/// diff.
struct divergence {
    /// @brief One name per thing that differs, for the players' desync message:
    /// "pool.field" (the first differing field of the pool's first differing entity) or "pool",
    /// then "entities", "groups", "resources". Empty if nothing differs (a schema difference
    /// is not named here: it is no desync of the simulation).
    std::string summary;
    /// @brief The same names one by one (`session_event::diverging`).
    std::vector<std::string> names;
    /// @brief One line per difference for a log: "pool.field of entity 12v3: a -> b", "pool of
    /// entity 5v0: only in the first run", "entities: ...", "resource ...", "group lengths",
    /// "schema: ...". At most `max_lines`: the last one then says how many more differ.
    std::vector<std::string> lines;
};

/// @brief What a stage changed differently on the server and on a client (desync bisection).
struct stage_divergence {
    divergence named; ///< as `name_divergence` names the two images after the stage
    /// @brief The first difference on one line, with the value before the stage where the diff
    /// has one: "ship_pos.x of entity 12v3: 970 -> -30 (server) vs 971 (client)".
    std::string first_line;
};

/// @brief Names how the server's image @p server and the client's @p client, both after one
/// stage, differ; @p before is the image before that stage (the same on both sides, or the
/// stage would not be the first to differ), or null at the start of a frame.
[[nodiscard]] result<stage_divergence> name_stage_divergence(const world_image *before, const world_image &server,
                                                             const world_image &client, const schema &server_schema,
                                                             const schema &client_schema);

/// @brief Names what @p d found. @p first and @p second name the two sides in `lines` (the
/// sync test's "the first run" and "the re-simulation").
[[nodiscard]] divergence name_divergence(const snapshot_diff &d, const std::string &first, const std::string &second,
                                         std::size_t max_lines = 32);

/// @brief The names of a `divergence::summary` as the desync message carries it (", "
/// between names), one by one: what a client puts in `session_event::diverging`.
[[nodiscard]] std::vector<std::string> split_diverging(std::string_view summary);

} // namespace retcon::internal

#endif
