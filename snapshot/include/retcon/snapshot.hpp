#ifndef RETCON_SNAPSHOT_HPP
#define RETCON_SNAPSHOT_HPP

/// @file snapshot.hpp
/// @brief Umbrella header for retcon::snapshot.

#include <retcon/ecs.hpp>
#include "snapshot/atomic_file.hpp"
#include "snapshot/diff.hpp"
#include "snapshot/error.hpp"
#include "snapshot/file.hpp"
#include "snapshot/fwd.hpp"
#include "snapshot/hash.hpp"
#include "snapshot/image.hpp"
#include "snapshot/inspect.hpp"
#include "snapshot/replay.hpp"
#include "snapshot/replay_encoder.hpp"
#include "snapshot/ring.hpp"

#endif
