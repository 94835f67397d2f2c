#ifndef RETCON_INTERNAL_FIELD_KINDS_HPP
#define RETCON_INTERNAL_FIELD_KINDS_HPP

// Every field kind in one table (docs/file-format.md, "Schema block"): the schema readers'
// range checks, the names inspect and dump print, and the C API's enumerators consult it, and
// tests/ecs/field_kinds.cpp checks it against scalar_width, retcon.h's rc_kind and the docs. A
// new kind is a new enumerator in type_info.hpp plus a row here (then the mirrors the test names).
// Not part of the API; never installed (retcon_internal_headers, ecs/CMakeLists.txt).
#include <retcon/ecs/type_info.hpp>

#include <array>
#include <cstdint>
#include <string_view>

namespace retcon::internal {

/// @brief One field kind's facts.
struct field_kind_row {
    field_kind kind;
    std::string_view enumerator; ///< its name in field_kind and in docs/file-format.md
    std::string_view printed;    ///< how inspect and dump name it
    std::string_view c_name;     ///< its rc_kind enumerator in retcon.h; empty if C has none
};

// clang-format off
/// @brief Every kind, in value order from 1 with no gaps.
inline constexpr std::array<field_kind_row, 15> field_kinds{{
    {field_kind::boolean, "boolean", "bool",   "RC_BOOL"},
    {field_kind::i8,      "i8",      "i8",     "RC_I8"},
    {field_kind::i16,     "i16",     "i16",    "RC_I16"},
    {field_kind::i32,     "i32",     "i32",    "RC_I32"},
    {field_kind::i64,     "i64",     "i64",    "RC_I64"},
    {field_kind::u8,      "u8",      "u8",     "RC_U8"},
    {field_kind::u16,     "u16",     "u16",    "RC_U16"},
    {field_kind::u32,     "u32",     "u32",    "RC_U32"},
    {field_kind::u64,     "u64",     "u64",    "RC_U64"},
    {field_kind::f32,     "f32",     "f32",    "RC_F32"},
    {field_kind::f64,     "f64",     "f64",    "RC_F64"},
    {field_kind::entity,  "entity",  "entity", "RC_ENTITY"},
    {field_kind::text,    "text",    "text",   "RC_TEXT"},
    {field_kind::record,  "record",  "record", "RC_RECORD"},
    {field_kind::bytes,   "bytes",   "bytes",  ""},
}};
// clang-format on

/// @brief The row of the kind stored as @p value, or nullptr if no kind has that value
/// (schema blocks and C descriptions are checked with this).
[[nodiscard]] constexpr const field_kind_row *find_field_kind(std::uint32_t value) noexcept {
    return value >= 1 && value <= field_kinds.size() ? &field_kinds[value - 1] : nullptr;
}

/// @brief The row of @p kind (every enumerator has one; a value outside them gets nullptr).
[[nodiscard]] constexpr const field_kind_row *find_field_kind(field_kind kind) noexcept {
    return find_field_kind(static_cast<std::uint32_t>(kind));
}

namespace detail {
constexpr bool field_kinds_in_order() noexcept {
    for (std::size_t i = 0; i < field_kinds.size(); ++i)
        if (static_cast<std::size_t>(field_kinds[i].kind) != i + 1) return false;
    return true;
}
} // namespace detail
static_assert(detail::field_kinds_in_order(), "field_kinds: rows must be in value order from 1, one per kind");

} // namespace retcon::internal

#endif
