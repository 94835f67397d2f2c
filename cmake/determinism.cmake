# RETCON_DETERMINISM_OPTIONS: the compiler options a simulation needs to compute the same bits
# on every CPU (docs/determinism.md#compiler-flags), for GCC and Clang:
#   -ffp-contract=off    no fused multiply-add the code did not ask for (std::fma is exact)
#   -msse2 -mfpmath=sse  32-bit x86 only: SSE maths instead of x87's 80-bit registers
# retcon's own targets use them (cmake/warnings.cmake) and retcon::determinism_flags carries
# them to every target that links retcon (ecs/CMakeLists.txt).
set(RETCON_DETERMINISM_OPTIONS -ffp-contract=off)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(i[3-6]86|x86|X86)$"
   OR (CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND CMAKE_SIZEOF_VOID_P EQUAL 4))
  list(APPEND RETCON_DETERMINISM_OPTIONS -msse2 -mfpmath=sse)
endif()
