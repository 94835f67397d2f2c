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
     * The same steps as `begin`, `before` and `end`, which a caller that hands each frame out
     * (a session's step requests) uses one at a time.
     */
    template<class Simulate>
    result<frame_t> resimulate(world &w, frame_t from, frame_t to, Simulate &&simulate) {
        if (auto r = begin(w, from); !r) return r.err();
        const resimulation guard{*this}; // also when a step throws
        frame_t done = 0;
        for (frame_t f = from; f < to; ++f) {
            before(w, f);
            ++done;
            if constexpr (std::is_same_v<decltype(simulate(f)), bool>) {
                if (!simulate(f)) break;
            } else {
                simulate(f);
            }
        }
        return done;
    }

    /// @brief Starts a re-simulation: restores @p w to the start of @p from (its error leaves
    /// @p w unchanged and nothing started). `is_resimulating()` is true until `end`.
    result<void> begin(world &w, frame_t from) {
        if (auto r = ring_.restore(w, from); !r) return r;
        from_ = from;
        resimulating_ = true;
        return {};
    }
    /// @brief Before re-simulating @p frame: saves its start (the first frame's is held already).
    void before(const world &w, frame_t frame) {
        if (frame != from_) ring_.save(w, frame);
    }
    /// @brief Ends the re-simulation.
    void end() noexcept { resimulating_ = false; }

    /// @brief Ends a re-simulation when it leaves scope, also by an exception or an abandoned
    /// step request.
    struct resimulation {
        rollback &r;
        explicit resimulation(rollback &of) noexcept : r{of} {}
        resimulation(const resimulation &) = delete;
        resimulation &operator=(const resimulation &) = delete;
        ~resimulation() { r.end(); }
    };

    /// @brief True while `resimulate` runs.
    [[nodiscard]] bool is_resimulating() const noexcept { return resimulating_; }

private:
    snapshot_ring ring_;
    frame_t from_ = no_frame;
    bool resimulating_ = false;
};

} // namespace retcon::internal

#endif
