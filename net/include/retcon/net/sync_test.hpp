#ifndef RETCON_NET_SYNC_TEST_HPP
#define RETCON_NET_SYNC_TEST_HPP

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <retcon/ecs/schedule.hpp>
#include <retcon/ecs/world.hpp>

#include "session_config.hpp"

namespace retcon {

/// @brief The first non-determinism a sync test found.
struct sync_test_failure {
    std::uint32_t frame = 0;           ///< frame whose re-simulation differed
    std::string system;                ///< first system whose result differed (schedule mode), else empty
    std::vector<std::string> sections; ///< pools / sections that differed
    std::uint64_t expected = 0;        ///< hash from the first run
    std::uint64_t actual = 0;          ///< hash from the re-simulation
    /// @brief One line for logs: "frame 42, system 'physics': pools position, velocity".
    [[nodiscard]] std::string describe() const;
};

/**
 * @brief Sync-test mode (no network): every tick, after simulating the new frame, roll back
 * `distance` frames, re-simulate them with the same inputs and compare hashes with the first
 * run. The first mismatch is reported with the frame and the pools that diverged; when the
 * step is a retcon `schedule`, the world is hashed after every system, so the report names the
 * first system that is not deterministic.
 *
 * @code
 * retcon::sync_test test{config, world, step, 8};
 * for (int i = 0; i < 600 && test.tick(inputs_for(i)); ++i) {}
 * if (auto f = test.failure()) std::puts(f->describe().c_str());
 * @endcode
 */
class sync_test {
public:
    /// @brief Opaque step: reports frame and pools.
    sync_test(session_config config, world &w, step_function step, std::uint32_t distance);
    /// @brief Schedule step: @p apply_inputs stores the frame's inputs in the world (a resource),
    /// then the schedule runs; reports the first diverging system too.
    sync_test(session_config config, world &w, std::function<void(world &, const frame_inputs &)> apply_inputs,
              const schedule &systems, std::uint32_t distance);
    ~sync_test();
    sync_test(const sync_test &) = delete;
    sync_test &operator=(const sync_test &) = delete;

    /// @brief Simulates one frame with every player's @p inputs (players × input_size bytes,
    /// all present), then checks the last `distance` frames. False once a mismatch was found.
    bool tick(std::span<const std::byte> inputs);
    /// @brief The first mismatch, if any.
    [[nodiscard]] const std::optional<sync_test_failure> &failure() const noexcept;
    /// @brief Frames simulated (first runs).
    [[nodiscard]] std::uint32_t frame() const noexcept;
    /// @brief Frames re-simulated so far.
    [[nodiscard]] std::uint64_t resimulated() const noexcept;
    /// @brief True while re-simulating.
    [[nodiscard]] bool is_resimulating() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace retcon

#endif
