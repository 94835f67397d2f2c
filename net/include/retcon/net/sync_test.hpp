#ifndef RETCON_NET_SYNC_TEST_HPP
#define RETCON_NET_SYNC_TEST_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <retcon/ecs/frame.hpp>
#include <retcon/ecs/step.hpp>
#include <retcon/ecs/world.hpp>
#include <retcon/snapshot/fwd.hpp>

#include "session_config.hpp"

namespace retcon {

/// @brief The first non-determinism a sync test found (docs/net.md, "Sync test").
struct sync_test_failure {
    frame_t frame = 0;           ///< frame whose re-simulation differed
    std::size_t stage_index = 0; ///< stage after which the hashes first differed (0: apply inputs)
    /// @brief Name of that stage: "apply inputs" or a system's name for a structured step,
    /// "step" for an opaque one.
    std::string stage{};
    /// @brief Hash sections that differed: "entities", component pool names, "groups",
    /// "resources".
    std::vector<std::string> sections{};
    /// @brief What differed, entity and field, e.g. "ship_pos.x of entity 12v3: 1049 -> 49"
    /// (first run -> re-simulation; see `sync_test` for how it is found). At most 32 lines, the
    /// last one then says how many more differ; empty if the difference could not be reproduced.
    std::vector<std::string> fields{};
    hash64 expected = 0; ///< hash after the stage in the first run
    hash64 actual = 0;   ///< hash after the stage in the re-simulation
    /// @brief One line for logs: "frame 42, stage 'physics': ship_pos.x of entity 12v3: 1049 -> 49
    /// (sections ship_pos)".
    [[nodiscard]] std::string describe() const;
};

/**
 * @brief Sync-test mode (no network): every tick, after simulating the new frame, roll back
 * `distance` frames, re-simulate them with the same inputs and compare hashes with the first
 * run (docs/net.md, "Sync test").
 *
 * The world is hashed after every stage of the step (`step_function::run`): after the inputs
 * are applied ("apply inputs"), then after each system of a structured step; an opaque step is
 * one stage, "step". The first mismatch is reported with its frame, the first stage whose hash
 * differs, the hash sections that differ and the entities and fields that differ.
 *
 * The fields are found on the failure path only: the re-simulated world right after the failing
 * stage is saved, frame f is restored from the snapshot ring and its stages [0, k] run once more
 * as a first run (`is_resimulating()` false, as in the first run), and the two worlds are compared
 * with `retcon::diff`. Any difference between the two runs is non-determinism in those stages;
 * if the replay happens to match the re-simulation (the step depends on hidden state that
 * repeated itself), `fields` stays empty and `sections` still names what differed. After a
 * failure the world is left mid-frame and every further `tick` returns false.
 *
 * Memory: `distance + 1` world snapshots (the ring), `distance + 2` input records and
 * `(distance + 2) × stages` sets of section hashes (each about 56 bytes + 8 per component type), all
 * reserved at construction or while the world first grows to its high-water size; a tick that
 * finds no mismatch allocates nothing after that. The forensics on failure allocate (two more
 * world snapshots and the diff).
 *
 * @code
 * retcon::sync_test test{config, world, retcon::step_function{apply_inputs, make_systems()}, 8};
 * for (frame_t i = 0; i < 600; ++i) {
 *     std::array<Input, 2> in{bot0.next(), bot1.next()};
 *     if (!test.tick<Input>(in)) break;
 * }
 * if (const auto &f = test.failure()) std::puts(f->describe().c_str());
 * @endcode
 */
class sync_test {
public:
    /// @brief A sync test of @p step on @p w (which must outlive it) with @p config's players and
    /// input size, re-simulating the last @p distance frames every tick (0 counts as 1). The step
    /// is copied; a structured step owns its schedule, so a temporary schedule is fine. A config
    /// outside what sessions accept is misuse.
    sync_test(session_config config, world &w, step_function step, frame_t distance);
    ~sync_test();
    sync_test(const sync_test &) = delete;
    sync_test &operator=(const sync_test &) = delete;

    /**
     * @brief Simulates the next frame with @p inputs — its flags (which slots are present, so
     * join and leave code is tested too) and inputs exactly as a session's step would see them —
     * then checks the last `distance` frames. False once a mismatch was found.
     *
     * Misuse: a buffer whose players or input size differ from the config, or flag bits other
     * than present and replaced.
     */
    bool tick(const frame_inputs_buffer &inputs);

    /// @brief `tick` with every slot present: one @p Input per player. Misuse: `sizeof(Input)`
    /// differing from the config's input size, or a count differing from its players.
    template<class Input>
    bool tick(std::span<const Input> inputs) {
        static_assert(std::is_trivially_copyable_v<Input>, "retcon: inputs must be trivially copyable");
        return tick_all_present(reinterpret_cast<const std::byte *>(inputs.data()), inputs.size(), sizeof(Input));
    }

    /// @brief The first mismatch, if any.
    [[nodiscard]] const std::optional<sync_test_failure> &failure() const noexcept;
    /// @brief Frames simulated (first runs); the next `tick` simulates this frame.
    [[nodiscard]] frame_t frame() const noexcept;
    /// @brief Frames re-simulated so far.
    [[nodiscard]] std::uint64_t resimulated() const noexcept;
    /// @brief True while re-simulating (false during first runs and the forensic replay).
    [[nodiscard]] bool is_resimulating() const noexcept;

private:
    bool tick_all_present(const std::byte *inputs, std::size_t count, std::size_t input_size);

    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace retcon

#endif
