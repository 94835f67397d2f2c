#ifndef RETCON_HOST_MATCH_RESULT_HPP
#define RETCON_HOST_MATCH_RESULT_HPP

#include <cstdint>
#include <string>
#include <vector>

#include <retcon/ecs/frame.hpp>
#include <retcon/snapshot/fwd.hpp>

namespace retcon {

/// @brief One player slot's line in a match result: who held it and what the game says of it.
struct slot_result {
    int slot = 0;
    std::uint64_t player_id = 0;       ///< from the slot's join token (0 in open mode)
    std::string name{};                ///< the last name the slot's player gave
    std::int64_t score = 0;            ///< as the game reports it (hosted_game::report)
    std::string outcome;               ///< as the game reports it ("won", "lost", ...; empty: none)
    std::uint64_t replaced_inputs = 0; ///< inputs the server substituted for this slot
    bool present_at_end = false;       ///< connected when the match ended
};

/**
 * @brief The server's verdict on a finished match, for a ranking service: what was played,
 * how it ended, and how far its record can be trusted (docs/hosting.md, "Match results").
 *
 * The host passes it to `match_host::on_result` and writes it as one JSON line to its log.
 */
struct match_result {
    std::string match_id{};
    /// @brief Why it ended: "players left", "duration", "drain", "drain forced", or
    /// "error: ..." (an exception in the game's step or a misuse report ended it).
    std::string end_reason{};
    frame_t final_frame = 0; ///< frames simulated (the next frame it would have confirmed)
    hash64 final_hash = 0;   ///< XXH3 hash of the world after the last frame
    std::vector<slot_result> slots{};
    std::uint64_t joins = 0; ///< players who joined (reconnections count again)
    std::string replay_path; ///< empty: not recorded (or the recording failed)
    std::uint64_t replay_bytes = 0;
    hash64 replay_hash = 0; ///< XXH3-64 of the replay file's bytes
    /// @brief The match was to be recorded and its replay could not be written (created,
    /// added to or finished): `replay_path` is empty and the host's exit status is 1
    /// (docs/hosting.md, "Exit status").
    bool recording_failed = false;
    std::string recording_error{};             ///< why, with the path (empty unless recording_failed)
    std::uint64_t desyncs_verified = 0;        ///< uploads that differed from the server's world
    std::uint64_t desyncs_unverified = 0;      ///< claims no upload verified
    std::uint64_t replaced_inputs = 0;         ///< over all slots
    std::uint64_t bytes_in = 0, bytes_out = 0; ///< payload bytes of the match's connections
    double duration_s = 0;
};

/// @brief The result as one line of JSON (no trailing newline), keys as the fields' names
/// plus `"event":"match_result"`; 64-bit hashes as 16-digit hex strings.
[[nodiscard]] std::string to_json(const match_result &r);

} // namespace retcon

#endif
