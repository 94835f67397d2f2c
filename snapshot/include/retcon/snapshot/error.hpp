#ifndef RETCON_SNAPSHOT_ERROR_HPP
#define RETCON_SNAPSHOT_ERROR_HPP

// errc, error and result<T> belong to the base layer (retcon/ecs/error.hpp) so that every
// module reports untrusted input in one shape; this header keeps the snapshot spelling.
#include <retcon/ecs/error.hpp>

#endif
