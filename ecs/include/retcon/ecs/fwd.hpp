#ifndef RETCON_ECS_FWD_HPP
#define RETCON_ECS_FWD_HPP

#include <cstddef>
#include <cstdint>

#include "../config.hpp"

namespace retcon {

#if RETCON_ENTITY_64
enum class entity : std::uint64_t;
#else
enum class entity : std::uint32_t;
#endif
struct entity_traits;
struct type_info;
struct field_info;
class sparse_set;
class pool;
class schema;
class world;
class command_buffer;
class schedule;
template<class... T>
struct type_list;
template<class... T>
struct exclude_t;
template<class Get, class Exclude>
class basic_view;
template<class... Owned>
class basic_group;
template<std::size_t N>
class fixed_string;
template<class T, std::size_t N>
class inline_vector;

} // namespace retcon

#endif
