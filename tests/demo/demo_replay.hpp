#ifndef RETCON_TESTS_DEMO_DEMO_REPLAY_HPP
#define RETCON_TESTS_DEMO_DEMO_REPLAY_HPP
// A short recording of the demo game for the replay player's and viewer's tests: 1,500 frames
// of two bots in a thin dust field, a keyframe every 120 frames. Recorded once per test process
// (cheap even under the sanitizers, unlike re-simulating the three-minute golden match).

#include <cstdint>
#include <filesystem>

namespace retcon::demo::testing {

/// @brief Frames in the short recording.
inline constexpr unsigned short_replay_frames = 1'500;

/// @brief Records short_replay_frames frames of two bots (seeded @p first_bot and
/// @p first_bot + 1) in a world seeded @p world_seed with a tenth of the demo's dust, a keyframe
/// every @p keyframe_interval frames, into @p path.
void record_bot_match(const std::filesystem::path &path, std::uint64_t world_seed, std::uint64_t first_bot,
                      std::uint32_t keyframe_interval);

/// @brief The path of the short recording (written at the first call, removed at exit).
const std::filesystem::path &short_replay();

} // namespace retcon::demo::testing

#endif
