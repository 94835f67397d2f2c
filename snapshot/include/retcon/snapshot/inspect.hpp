#ifndef RETCON_SNAPSHOT_INSPECT_HPP
#define RETCON_SNAPSHOT_INSPECT_HPP

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include <retcon/ecs/schema.hpp>

#include "error.hpp"
#include "file.hpp"
#include "image.hpp"

namespace retcon {

/// @brief Formats one field's value from its bytes (numbers, entity handles as "12v3" for index
/// 12 version 3,
/// text, hex for opaque bytes; arrays as [a, b, ...]). Used by diff, dump and the CLI.
[[nodiscard]] std::string format_field(const schema::field &f, const std::byte *bytes);

/// @brief The kind of retcon file at a path, judged by its magic.
enum class file_kind : std::uint8_t { unknown, snapshot, replay };

/// @brief Reads the first bytes of @p path to tell what it is.
result<file_kind> detect_file_kind(const std::filesystem::path &path);

/// @brief A human-readable description of a file: header, schema, frames, sizes, compression
/// ratios, keyframes. What `retcon inspect` prints.
result<std::string> inspect_file(const std::filesystem::path &path, const read_limits &limits = {});

/// @brief JSON dump of a world image: header, resources, and every entity with its
/// components, fields by name. What `retcon dump` prints.
[[nodiscard]] std::string dump_json(const world_image &image, const schema &s);

/// @brief The text of a schema, one type per line with its fields.
[[nodiscard]] std::string describe_schema(const schema &s);

} // namespace retcon

#endif
