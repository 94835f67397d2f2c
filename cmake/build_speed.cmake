# Build-time options that change how fast the tree builds, never what it checks (docs/testing.md,
# "Build time"). Included at the end of the top-level CMakeLists.txt, once every target exists.
#
#   RETCON_PCH_TESTS      Catch2's header precompiled once and used by the Catch2 suites (each
#                         test source parsed it anew: about a fifth of the suites' compile time).
#   RETCON_HEADERS_ALONE  OFF leaves tests/headers' units (every public header compiled alone)
#                         out of the default build: the asan preset, whose flags cannot change
#                         whether a header compiles alone; the ci preset builds them.
option(RETCON_PCH_TESTS "Precompile Catch2's header for the test suites" OFF)
option(RETCON_HEADERS_ALONE "Build tests/headers' units with the default build" ON)

function(retcon_speed_up_tests)
  if(NOT RETCON_PCH_TESTS)
    return()
  endif()
  # Not retcon_host_tests nor retcon_capi_tests: through a precompiled header GCC 12 reports
  # libstdc++'s own code (a false -Warray-bounds in std::string's operator+, from
  # tests/host/join_token.cpp and tests/capi) as it never does when the header is included as
  # written. Each suite precompiles its own: a header shared with REUSE_FROM is refused
  # (-Winvalid-pch) as soon as one suite has a compile definition the others lack.
  foreach(suite retcon_ecs_tests retcon_snapshot_tests retcon_net_tests)
    if(TARGET ${suite})
      target_precompile_headers(${suite} PRIVATE <catch2/catch.hpp>)
    endif()
  endforeach()
endfunction()

function(retcon_headers_alone_build)
  if(RETCON_HEADERS_ALONE OR NOT TARGET retcon_headers_alone_ecs)
    return()
  endif()
  get_property(units DIRECTORY "${PROJECT_SOURCE_DIR}/tests/headers" PROPERTY BUILDSYSTEM_TARGETS)
  set_target_properties(${units} PROPERTIES EXCLUDE_FROM_ALL ON)
endfunction()
