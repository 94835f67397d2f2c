# retcon_target_warnings(<target>): the project's warning set, per target (never global).
# Everything retcon builds uses RETCON_DETERMINISM_OPTIONS (cmake/determinism.cmake); its
# consumers get them from retcon::ecs (retcon::determinism_flags, ecs/CMakeLists.txt).
include(${CMAKE_CURRENT_LIST_DIR}/determinism.cmake)
function(retcon_target_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE
      -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
      -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
      -Wnull-dereference -Wdouble-promotion -Wimplicit-fallthrough
      ${RETCON_DETERMINISM_OPTIONS})
    if(RETCON_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()

# retcon_c_target_warnings(<target>): the same for a C11 target (the C API's tests): the warning
# set without its C++-only flags, strict C11 without extensions.
function(retcon_c_target_warnings target)
  set_target_properties(${target} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE
      -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wcast-align
      -Wnull-dereference -Wdouble-promotion -Wimplicit-fallthrough ${RETCON_DETERMINISM_OPTIONS})
    if(RETCON_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()
