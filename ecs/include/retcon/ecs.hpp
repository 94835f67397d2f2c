#ifndef RETCON_ECS_HPP
#define RETCON_ECS_HPP

/// @file ecs.hpp
/// @brief Umbrella header for retcon::ecs.

#include "config.hpp"
#include "ecs/command_buffer.hpp"
#include "ecs/entity.hpp"
#include "ecs/error.hpp"
#include "ecs/fixed_string.hpp"
#include "ecs/frame.hpp"
#include "ecs/fwd.hpp"
#include "ecs/group.hpp"
#include "ecs/inline_vector.hpp"
#include "ecs/pool.hpp"
#include "ecs/schedule.hpp"
#include "ecs/schema.hpp"
#include "ecs/sparse_set.hpp"
#include "ecs/step.hpp"
#include "ecs/type_info.hpp"
#include "ecs/view.hpp"
#include "ecs/world.hpp"
#include "version.hpp"

#endif
