#ifndef RETCON_SNAPSHOT_SRC_XXH3_HPP
#define RETCON_SNAPSHOT_SRC_XXH3_HPP

// Internal entry points into hash.cpp, the only translation unit that includes xxhash.h.
#include <retcon/snapshot/hash.hpp>

#include <cstddef>
#include <initializer_list>
#include <span>

namespace retcon::internal {

/// @brief XXH3-64 of the concatenation of @p parts, streamed: the same value as `xxh3` over the
/// joined bytes, without joining them (file header and chunk checksums, docs/file-format.md).
[[nodiscard]] hash64 xxh3_concat(std::initializer_list<std::span<const std::byte>> parts) noexcept;

} // namespace retcon::internal

#endif
