#ifndef RETCON_NET_SRC_FORENSICS_HPP
#define RETCON_NET_SRC_FORENSICS_HPP

#include <retcon/ecs/frame.hpp>
#include <retcon/snapshot/diff.hpp>
#include <retcon/snapshot/image.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace retcon::internal {

/**
 * @brief Desync forensics, the part every side shares (docs/net.md, "Desync forensics" and
 * "Sync test"): images of the world kept after checksum frames, so a mismatch found later can
 * still be compared, and one way of naming what diverged between two images.
 *
 * The client keeps the images it may be asked to upload; the server keeps the images it
 * compares uploads with and names the difference for both players; the sync test names the
 * difference between a first run and its re-simulation.
 */
class kept_images {
public:
    /// @brief Room for @p count images, all empty.
    void reset(std::size_t count) {
        images_.resize(count);
        frames_.assign(count, no_frame);
    }
    [[nodiscard]] std::size_t size() const noexcept { return images_.size(); }

    /// @brief Slot @p index (modulo the size) as the image of the world after @p frame, for the
    /// caller to fill (`save(w, image, frame + 1)`: an image holds the world at the start of the
    /// next frame). Its previous image is forgotten.
    world_image &hold(std::size_t index, frame_t frame) {
        index %= images_.size();
        frames_[index] = frame;
        return images_[index];
    }
    /// @brief Forgets the image in slot @p index (modulo the size), e.g. after a failed fill.
    void forget(std::size_t index) noexcept { frames_[index % images_.size()] = no_frame; }

    /// @brief The image of the world after @p frame, or null if not kept.
    [[nodiscard]] const world_image *after(frame_t frame) const noexcept {
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

/// @brief What differs between two images of one frame, named two ways from one walk of the
/// diff.
struct divergence {
    /// @brief One name per thing that differs, for the players' desync message:
    /// "pool.field" (the first differing field of the pool's first differing entity) or "pool",
    /// then "entities", "groups", "resources". Empty if nothing differs (a schema difference
    /// is not named here: it is no desync of the simulation).
    std::string summary;
    /// @brief One line per difference for a log: "pool.field of entity 12v3: a -> b", "pool of
    /// entity 5v0: only in the first run", "entities: ...", "resource ...", "group lengths",
    /// "schema: ...". At most `max_lines`: the last one then says how many more differ.
    std::vector<std::string> lines;
};

/// @brief Names what @p d found. @p first and @p second name the two sides in `lines` (the
/// sync test's "the first run" and "the re-simulation").
[[nodiscard]] divergence name_divergence(const snapshot_diff &d, const std::string &first, const std::string &second,
                                         std::size_t max_lines = 32);

} // namespace retcon::internal

#endif
