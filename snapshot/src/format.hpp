#ifndef RETCON_SNAPSHOT_SRC_FORMAT_HPP
#define RETCON_SNAPSHOT_SRC_FORMAT_HPP

// Value formatting shared by diff, inspect and dump.
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
