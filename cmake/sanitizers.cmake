# A tree built with AddressSanitizer (the asan preset): RETCON_ASAN_RUNTIME is the compiler's
# shared ASan runtime, which a foreign runtime (python3, mono) preloads to load libretcon_c
# (tests/capi/CMakeLists.txt); empty in any other tree.
#
# GCC's sanitizers link that shared runtime by default; clang's are told to (-shared-libsan in
# the preset's linker flags), so that the foreign runtime and the programs it starts share one
# copy: a static copy beside a preloaded one refuses to start. clang's runtime lives in its own
# directory, which the loader is told here (clang 14 does not).
include_guard(GLOBAL)
set(RETCON_ASAN_RUNTIME "")
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
  set(retcon_asan_name libasan.so)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(retcon_asan_name libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${retcon_asan_name}
    OUTPUT_VARIABLE RETCON_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${RETCON_ASAN_RUNTIME}")
    message(FATAL_ERROR "${CMAKE_CXX_COMPILER} has no shared AddressSanitizer runtime "
      "(${retcon_asan_name}): install its sanitizer runtimes (libclang-rt-14-dev for clang)")
  endif()
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND CMAKE_EXE_LINKER_FLAGS MATCHES "-shared-libsan")
    get_filename_component(retcon_asan_dir "${RETCON_ASAN_RUNTIME}" DIRECTORY)
    string(APPEND CMAKE_EXE_LINKER_FLAGS " -Wl,-rpath,${retcon_asan_dir}")
    string(APPEND CMAKE_SHARED_LINKER_FLAGS " -Wl,-rpath,${retcon_asan_dir}")
  endif()
endif()
