#ifndef RETCON_SNAPSHOT_RING_HPP
#define RETCON_SNAPSHOT_RING_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <retcon/ecs/frame.hpp>

#include "error.hpp"
#include "image.hpp"

namespace retcon {

/**
 * @brief The last K frames' snapshots, for rollback.
 *
 * K is chosen at run time: the prediction window + 1 (or a sync test's rollback distance + 1).
 * Frame F lives in slot F mod K, so saving F + K overwrites F. Each slot's buffer grows to its
 * high-water mark and is then reused: steady-state saves do not allocate. Restoring frame F
 * invalidates every slot newer than F (that future is discarded and must never be read again).
 */
class snapshot_ring {
public:
    /// @brief A ring of @p capacity slots (at least 1).
    explicit snapshot_ring(std::size_t capacity);

    /// @brief Saves @p w as frame @p frame (replacing whatever its slot held).
    void save(const world &w, frame_t frame);
    /// @brief Restores frame @p frame into @p w and drops every newer frame.
    /// errc::not_found if the ring does not hold it (too old, never saved, or discarded).
    result<void> restore(world &w, frame_t frame);

    /// @brief True if frame @p frame is held.
    [[nodiscard]] bool contains(frame_t frame) const noexcept;
    /// @brief The snapshot of @p frame, or nullptr.
    [[nodiscard]] const world_image *find(frame_t frame) const noexcept;
    /// @brief Oldest and newest frames held (nullopt when empty).
    [[nodiscard]] std::optional<frame_t> oldest() const noexcept;
    [[nodiscard]] std::optional<frame_t> newest() const noexcept;
    /// @brief Number of slots.
    [[nodiscard]] std::size_t capacity() const noexcept { return slots_.size(); }
    /// @brief Number of frames held.
    [[nodiscard]] std::size_t size() const noexcept;
    /// @brief Drops every frame (buffers are kept).
    void clear() noexcept;
    /// @brief Bytes reserved by all slot buffers.
    [[nodiscard]] std::size_t memory() const noexcept;

private:
    struct slot {
        world_image image{};
        frame_t frame = 0;
        bool valid = false;
    };
    std::vector<slot> slots_;
};

} // namespace retcon

#endif
