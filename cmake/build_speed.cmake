# Build-time options that change how fast the tree builds, never what it checks (docs/testing.md,
# "Build time"). Included at the end of the top-level CMakeLists.txt, once every target exists.
#
#   RETCON_PCH_TESTS      Catch2's header precompiled once and used by the Catch2 suites (each
#                         test source parsed it anew: about a fifth of the suites' compile time).
#   RETCON_HEADERS_ALONE  OFF leaves tests/headers' units (every public header compiled alone)
#                         out of the default build: the asan preset, whose flags cannot change
#                         whether a header compiles alone; the ci preset builds them.
#   RETCON_TEST_SUITE_OPTIMIZE  the optimisation of the Catch2 suites' own sources, after the build
#                         type's (the ci preset: -O1, which compiles them in about 0.7 of -O2's
#                         time); the libraries, programs and tools they test keep the build type's.
option(RETCON_PCH_TESTS "Precompile Catch2's header for the test suites" OFF)
option(RETCON_HEADERS_ALONE "Build tests/headers' units with the default build" ON)
set(RETCON_TEST_SUITE_OPTIMIZE "" CACHE STRING
  "Optimisation flag for the Catch2 suites' own sources (empty: the build type's)")

set(retcon_test_suites retcon_ecs_tests retcon_snapshot_tests retcon_net_tests retcon_host_tests
  retcon_capi_tests retcon_demo_tests)

function(retcon_speed_up_tests)
  if(RETCON_TEST_SUITE_OPTIMIZE)
    foreach(suite ${retcon_test_suites})
      if(TARGET ${suite})
        target_compile_options(${suite} PRIVATE ${RETCON_TEST_SUITE_OPTIMIZE})
      endif()
    endforeach()
  endif()
  if(NOT RETCON_PCH_TESTS)
    return()
  endif()
  # Not retcon_host_tests nor retcon_capi_tests: through a precompiled header GCC 12 reports
  # libstdc++'s own code (a false -Warray-bounds in std::string's operator+, from
  # tests/host/join_token.cpp and tests/capi) as it never does when the header is included as
  # written. Each suite precompiles its own: a header shared with REUSE_FROM is refused
  # (-Winvalid-pch) as soon as one suite has a compile definition the others lack.
  set(suites retcon_ecs_tests retcon_snapshot_tests retcon_net_tests)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang") # clang has no such false report
    list(APPEND suites retcon_host_tests retcon_capi_tests)
  endif()
  foreach(suite ${suites})
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
