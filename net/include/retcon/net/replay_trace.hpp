#ifndef RETCON_NET_REPLAY_TRACE_HPP
#define RETCON_NET_REPLAY_TRACE_HPP

/// @file replay_trace.hpp
/// @brief A replay file's own timeline as a trace, without the game's step: what `retcon trace`
/// writes (docs/cli.md, "trace"; docs/net.md, "Reading a trace").

#include <cstdint>
#include <filesystem>

#include <retcon/ecs/error.hpp>

namespace retcon {

class replay_reader;

/// @brief What a replay's timeline holds (each count is what the trace has of it).
struct replay_trace_summary {
    std::uint64_t frames = 0;          ///< `frame` slices: one per recorded frame
    std::uint64_t keyframes = 0;       ///< `keyframe` instants
    std::uint64_t replaced_inputs = 0; ///< `input_replaced` instants: a slot's input the server substituted
    std::uint64_t joins = 0;           ///< `player_joined` instants: a slot present after a frame without it
    std::uint64_t leaves = 0;          ///< `player_left` instants: a slot absent after a frame with it
    std::uint64_t tick_ns = 0;         ///< the synthetic tick period the timestamps use
};

/**
 * @brief Writes the timeline of @p reader's frames to @p path as Trace Event Format JSON,
 * atomically (docs/cli.md, "trace").
 *
 * The file alone holds no durations: frame F's `frame` slice (args `frame`, `players`) runs from
 * F × tick period to (F + 1) × tick period, the period being one second over the replay's
 * `tick_hz` (60 when it records 0). Keyframes, replaced inputs, joins and leaves are process-wide
 * instants at the start of their frame, with the frame and slot in their text; a `players`
 * counter follows the occupied slots. Per-system slices need the game's step (the demo:
 * `demo_client --replay FILE --headless --trace OUT`).
 *
 * Every keyframe is decoded and every checksum verified first (`replay_reader::check`): a damaged
 * replay gives that error and no file. A replay cut short is traced as far as it is readable.
 * @return the counts, or the replay's error, or the `io` error of writing @p path.
 */
[[nodiscard]] result<replay_trace_summary> write_replay_trace(const replay_reader &reader,
                                                              const std::filesystem::path &path);

} // namespace retcon

#endif
