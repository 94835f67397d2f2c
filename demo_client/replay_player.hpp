#ifndef RETCON_DEMO_REPLAY_PLAYER_HPP
#define RETCON_DEMO_REPLAY_PLAYER_HPP
// Plays a recorded match back, whatever draws it: the terminal player and the window's replay
// viewer both drive one of these and draw its world. Every frame it simulates is checked against
// the hash the recording holds; a seek restores the nearest keyframe (or checkpoint of frames it
// simulated before) at or before the target and re-simulates the frames up to it, checking the
// last one (docs/snapshot.md, "Watching a replay").

#include <retcon/snapshot.hpp>
#include <retcon_demo/game.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace retcon::demo {

/// @brief What a replay player shows: where it is, how fast, and what it has verified so far.
struct replay_status {
    frame_t frame = 0; ///< the next frame to simulate: the world is as it was after `frame - 1`
    frame_t start = 0; ///< the first frame with inputs
    frame_t end = 0;   ///< one past the last frame with inputs
    double speed = 1;  ///< playback speed (1: the recording's tick rate)
    bool paused = false;
    std::uint64_t verified = 0;              ///< distinct frames re-simulated to their recorded hash
    std::uint64_t mismatched = 0;            ///< distinct frames whose re-simulated hash differed
    std::optional<frame_t> first_mismatch{}; ///< the lowest frame that mismatched
    bool complete = true;                    ///< the file ends as its writer finished it
    std::string truncation_note;             ///< when not complete: where the readable part ends
    /// @brief At the end of the recording (nothing left to play).
    [[nodiscard]] bool at_end() const noexcept { return frame >= end; }
};

/**
 * @brief A replay being played back: owns the reader, the game and the world it re-simulates.
 * It never draws; whoever draws reads `world()` (through a scene) and `status()`.
 */
class replay_player {
public:
    /// The speed limits: halving or doubling stops here.
    static constexpr double min_speed = 0.125, max_speed = 64;
    /// Frames between the in-memory checkpoints the player keeps of worlds it has simulated (a
    /// later seek starts from the nearest one when it is closer than the file's keyframe).
    static constexpr frame_t checkpoint_every = 120;
    /// Memory the checkpoints may take; past it no more are kept (the file's keyframes remain).
    static constexpr std::size_t max_checkpoint_bytes = std::size_t{64} << 20;

    /// @brief Opens @p path, checks every keyframe (a damaged file is an error here, before
    /// anything is shown) and the game's schema, and stands at the first frame.
    static result<std::unique_ptr<replay_player>> open(const std::filesystem::path &path);
    /// @copybrief open
    static result<std::unique_ptr<replay_player>> open(replay_reader reader);

    replay_player(const replay_player &) = delete;
    replay_player &operator=(const replay_player &) = delete;

    /// @brief Simulates the next frame and checks its hash; false at the end.
    bool advance();
    /// @brief Stands at @p target (clamped to [start, end]): starts from the latest state at or
    /// before it that it has — the file's keyframe (replay_reader::keyframe_at_or_before), a
    /// checkpoint kept from frames simulated before (every `checkpoint_every` frames), or where
    /// it stands — and re-simulates the frames in between, checking the hash of the last one
    /// only (frame target - 1; none when it lands on a keyframe or checkpoint: open() checked
    /// every keyframe). Errors only if the keyframe cannot be restored (the world is then
    /// unchanged).
    result<void> seek(frame_t target);
    /// @brief Forgets the checkpoints kept so far: a seek then starts from the file's keyframes
    /// (or where the player stands), as on a fresh player.
    void drop_checkpoints() noexcept;
    /// @brief Bytes the kept checkpoints take.
    [[nodiscard]] std::size_t checkpoint_bytes() const noexcept { return checkpoint_bytes_; }
    /// @brief Seeks by @p delta frames from where it stands (clamped).
    result<void> seek_by(std::int64_t delta);
    /// @brief Advances by the frames @p seconds of wall time hold at the current speed (none
    /// while paused); returns how many it simulated. A long stall is not caught up beyond a
    /// quarter of a second of playback.
    std::uint32_t play(double seconds);
    /// @brief One frame forward, only while paused (a single step); false if nothing moved.
    bool step();

    void set_paused(bool paused) noexcept;
    void toggle_paused() noexcept { set_paused(!paused_); }
    /// @brief Sets the speed, clamped to [min_speed, max_speed].
    void set_speed(double speed) noexcept;
    void faster() noexcept { set_speed(speed_ * 2); }
    void slower() noexcept { set_speed(speed_ / 2); }

    [[nodiscard]] replay_status status() const;
    [[nodiscard]] frame_t frame() const noexcept { return frame_; }
    [[nodiscard]] bool paused() const noexcept { return paused_; }
    [[nodiscard]] double speed() const noexcept { return speed_; }
    /// @brief How far (0..1) wall time has moved toward the next frame: for drawing between frames.
    [[nodiscard]] float between() const noexcept;
    /// @brief The recording's frames per second.
    [[nodiscard]] std::uint32_t tick_hz() const noexcept;
    /// @brief The keyframes' frames, in order (a seek restores one of these).
    [[nodiscard]] std::span<const frame_t> keyframes() const noexcept { return keyframes_; }
    [[nodiscard]] const world &current() const noexcept { return world_; }
    [[nodiscard]] const replay_reader &reader() const noexcept { return reader_; }

private:
    explicit replay_player(replay_reader reader);
    void mark(frame_t f, bool ok) noexcept;
    /// Simulates frame_ without hashing it, keeping a checkpoint where one is due.
    void simulate_unchecked();
    /// Keeps the world as the checkpoint of frame_ if one is due there and none is kept yet.
    void keep_checkpoint();

    replay_reader reader_;
    world world_;
    game game_;
    frame_t frame_ = 0;
    double speed_ = 1;
    bool paused_ = false;
    double owed_ = 0; // frames of wall time not yet played
    std::vector<frame_t> keyframes_;
    enum class mark_t : std::uint8_t { unknown, verified, mismatched };
    std::vector<mark_t> marks_; // per frame from start
    std::uint64_t verified_ = 0, mismatched_ = 0;
    std::vector<world_image> checkpoints_; // slot j: the world at start + j·checkpoint_every (empty: none)
    std::size_t checkpoint_bytes_ = 0;
};

} // namespace retcon::demo

#endif
