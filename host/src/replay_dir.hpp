#ifndef RETCON_HOST_REPLAY_DIR_HPP
#define RETCON_HOST_REPLAY_DIR_HPP

#include <retcon/ecs/error.hpp>

#include <filesystem>
#include <sys/types.h>

namespace retcon {

/// @brief The mode a replay directory the host creates gets, less the process's umask: the
/// server's user writes, its group (a ranking service's uploader) reads, nobody else.
inline constexpr mode_t replay_dir_mode = 0750;

/**
 * @brief Makes @p dir ready to hold replays before the host starts (docs/hosting.md, "Replay
 * directory"): creates it and any missing parents (`replay_dir_mode`), and refuses a path that
 * names something other than a directory (a link to one is one), that cannot be created, or that
 * this process cannot create files in. The error names the path and the system's reason.
 *
 * Without it a missing directory let every match run unrecorded, each recording failing at the
 * match's first frame.
 */
[[nodiscard]] result<void> prepare_replay_dir(const std::filesystem::path &dir);

} // namespace retcon

#endif
