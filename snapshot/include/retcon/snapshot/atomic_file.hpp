#ifndef RETCON_SNAPSHOT_ATOMIC_FILE_HPP
#define RETCON_SNAPSHOT_ATOMIC_FILE_HPP

/// @file atomic_file.hpp
/// @brief Replacing a file so that a reader, or a crash, never sees half of it.

#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>

#include "error.hpp"

namespace retcon {

/// @brief Permissions of a file anyone may read and only its owner may change (0644).
inline constexpr std::filesystem::perms public_file_mode =
    std::filesystem::perms::owner_read | std::filesystem::perms::owner_write | std::filesystem::perms::group_read |
    std::filesystem::perms::others_read;

/// @brief Permissions of a secret: only its owner may read or change it (0600).
inline constexpr std::filesystem::perms secret_file_mode =
    std::filesystem::perms::owner_read | std::filesystem::perms::owner_write;

/**
 * @brief Replaces @p path with @p bytes atomically (docs/snapshot.md, "Writing files").
 *
 * The one file writer behind snapshot files, key files and token files. Its guarantees:
 * - the bytes go to a new temporary file in the same directory as @p path (so the rename
 *   below cannot cross file systems), created exclusively, never through an existing file or
 *   link, and readable by its owner only until it has exactly the permissions @p mode, whatever
 *   the umask: a secret is never readable by others, even for an instant;
 * - the temporary file is flushed to disk (fsync), renamed over @p path, and the directory is
 *   flushed so the rename itself survives a crash; a reader sees the old file or the new one;
 * - on any failure the temporary file is removed and @p path is left as it was;
 * - an existing @p path that is not a regular file (a directory, FIFO, device, socket or
 *   symbolic link) is refused before anything is written, with an error saying what it is.
 *
 * Each call uses a temporary name of its own, so threads and processes writing the same path
 * at once each succeed and the file holds one writer's bytes whole. A process killed between
 * creating and renaming the temporary leaves it behind (named `<file name>.tmp.<6 characters>`).
 *
 * @param path the file to create or replace; its directory must exist.
 * @param bytes the whole new contents.
 * @param mode the permissions the file gets.
 * @return nothing, or an `io` error naming @p path, the step that failed and the system's reason.
 */
[[nodiscard]] result<void> write_file_atomic(const std::filesystem::path &path, std::span<const std::byte> bytes,
                                             std::filesystem::perms mode = public_file_mode);

/// @brief Replaces @p path with @p text atomically, as write_file_atomic for bytes.
[[nodiscard]] inline result<void> write_file_atomic(const std::filesystem::path &path, std::string_view text,
                                                    std::filesystem::perms mode = public_file_mode) {
    return write_file_atomic(path, std::as_bytes(std::span{text.data(), text.size()}), mode);
}

} // namespace retcon

#endif
