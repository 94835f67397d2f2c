#ifndef RETCON_SNAPSHOT_SRC_VALUE_TEXT_HPP
#define RETCON_SNAPSHOT_SRC_VALUE_TEXT_HPP

// Values as text: a field's value (numbers, entity handles, text, hex), JSON strings, hashes in
// hex. Shared by diff, inspect and dump, and by the file readers' messages. Not the file formats
// (those are file_header, image_layout, replay_chunk).
#include <retcon/ecs/entity.hpp>
#include <retcon/ecs/schema.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace retcon::internal {
/// @brief A field's value as text (json = true: a valid JSON value).
std::string format_value(const schema::field &f, const std::byte *bytes, bool json);
/// @brief A quoted, escaped JSON string.
std::string json_string(std::string_view s);
/// @brief 16 lowercase hex digits.
std::string hex64(std::uint64_t v);
} // namespace retcon::internal

#endif
