// Every public header of retcon::ecs, included once: the suite fails to build if one of them
// stops compiling or stops being includable.
#include <retcon/config.hpp>
#include <retcon/ecs.hpp>
#include <retcon/ecs/command_buffer.hpp>
#include <retcon/ecs/entity.hpp>
#include <retcon/ecs/error.hpp>
#include <retcon/ecs/fixed_string.hpp>
#include <retcon/ecs/frame.hpp>
#include <retcon/ecs/fwd.hpp>
#include <retcon/ecs/group.hpp>
#include <retcon/ecs/inline_vector.hpp>
#include <retcon/ecs/internal_pp.hpp>
#include <retcon/ecs/pool.hpp>
#include <retcon/ecs/schedule.hpp>
#include <retcon/ecs/schema.hpp>
#include <retcon/ecs/sparse_set.hpp>
#include <retcon/ecs/step.hpp>
#include <retcon/ecs/type_info.hpp>
#include <retcon/ecs/view.hpp>
#include <retcon/ecs/walk.hpp>
#include <retcon/ecs/world.hpp>
#include <retcon/version.hpp>

#include <catch2/catch.hpp>

TEST_CASE("version matches the RETCON_VERSION macros", "[headers]") {
    STATIC_REQUIRE(retcon::version.major == RETCON_VERSION_MAJOR);
    STATIC_REQUIRE(retcon::version.minor == RETCON_VERSION_MINOR);
    STATIC_REQUIRE(retcon::version.patch == RETCON_VERSION_PATCH);
    CHECK(retcon::version.major >= 0);
    CHECK(retcon::version.minor >= 0);
    CHECK(retcon::version.patch >= 0);
}
