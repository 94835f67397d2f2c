# A tree built by clang with the sanitizers (the asan preset) links their shared runtime
# (-shared-libsan in the preset's linker flags), as GCC's sanitizers do: a foreign runtime that
# preloads it to load libretcon_c (python3 and mono, tests/capi/CMakeLists.txt) and the programs
# it starts then share one copy; a static copy beside a preloaded one refuses to start. clang's
# runtime lives in its own directory, which the loader is told here (clang 14 does not).
include_guard(GLOBAL)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND CMAKE_EXE_LINKER_FLAGS MATCHES "-shared-libsan")
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so
    OUTPUT_VARIABLE retcon_sanitizer_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${retcon_sanitizer_runtime}")
    message(FATAL_ERROR "${CMAKE_CXX_COMPILER} has no shared AddressSanitizer runtime "
      "(libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so): install libclang-rt-14-dev")
  endif()
  get_filename_component(retcon_sanitizer_runtime_dir "${retcon_sanitizer_runtime}" DIRECTORY)
  string(APPEND CMAKE_EXE_LINKER_FLAGS " -Wl,-rpath,${retcon_sanitizer_runtime_dir}")
  string(APPEND CMAKE_SHARED_LINKER_FLAGS " -Wl,-rpath,${retcon_sanitizer_runtime_dir}")
endif()
