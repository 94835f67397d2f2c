# retcon_target_warnings(<target>): the project's warning set, per target (never global).
# Everything retcon builds uses -ffp-contract=off (docs/determinism.md#compiler-flags); its
# consumers get the flag from retcon::ecs (retcon::determinism_flags, ecs/CMakeLists.txt).
function(retcon_target_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE
      -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
      -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
      -Wnull-dereference -Wdouble-promotion -Wimplicit-fallthrough
      -ffp-contract=off)
    if(RETCON_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()
