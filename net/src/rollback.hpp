#ifndef RETCON_NET_SRC_ROLLBACK_HPP
#define RETCON_NET_SRC_ROLLBACK_HPP

#include <retcon/ecs/frame.hpp>
#include <retcon/ecs/world.hpp>
#include <retcon/snapshot/ring.hpp>

#include <cstddef>
#include <type_traits>

namespace retcon::internal {

/// @brief Rollback: the world saved at the start of each recent frame, and "restore the first
/// wrong frame, then re-simulate up to the present" (docs/net.md, "The model").
///
/// The client session rolls back when a confirmed input differs from what it predicted; the
/// sync test rolls back `distance` frames every tick to prove the step deterministic
/// (docs/net.md, "Sync test"). Both go through `resimulate`, so the sync test tests the client's
/// rollback.
class rollback {
public:
    /// @brief Holds the world at the start of the last @p frames frames.
    explicit rollback(std::size_t frames) : ring_{frames} {}

    /// @brief Saves @p w as the world at the start of @p frame, before the frame is simulated.
    void save(const world &w, frame_t frame) { ring_.save(w, frame); }

    /// @brief The world at the start of @p frame, if held.
    [[nodiscard]] const world_image *find(frame_t frame) const noexcept { return ring_.find(frame); }

    /// @brief Restores @p w to the start of @p frame (which must be held).
    result<void> restore(world &w, frame_t frame) { return ring_.restore(w, frame); }

    /// @brief Forgets every saved frame (after loading a snapshot).
    void clear() noexcept { ring_.clear(); }

    /**
     * @brief Restores @p w to the start of @p from and re-simulates frames [@p from, @p to) with
     * `simulate(frame)`, saving each frame's start again before it is simulated (@p from's is
     * already held). `is_resimulating()` is true meanwhile. A `simulate` that returns `bool`
     * stops the re-simulation by returning false (the frame it ran counts).
     *
     * Returns the number of frames re-simulated, or the restore's error with @p w unchanged.
     */
    template<class Simulate>
    result<frame_t> resimulate(world &w, frame_t from, frame_t to, Simulate &&simulate) {
        if (auto r = ring_.restore(w, from); !r) return r.err();
        resimulating_ = true;
        struct end_of_resimulation { // also when a step throws
            bool &flag;
            ~end_of_resimulation() { flag = false; }
        } const guard{resimulating_};
        frame_t done = 0;
        for (frame_t f = from; f < to; ++f) {
            if (f != from) ring_.save(w, f);
            ++done;
            if constexpr (std::is_same_v<decltype(simulate(f)), bool>) {
                if (!simulate(f)) break;
            } else {
                simulate(f);
            }
        }
        return done;
    }

    /// @brief True while `resimulate` runs.
    [[nodiscard]] bool is_resimulating() const noexcept { return resimulating_; }

private:
    snapshot_ring ring_;
    bool resimulating_ = false;
};

} // namespace retcon::internal

#endif
