# The C API from C, and its answers to misuse (docs/c-api.md). Included by
# tests/capi/CMakeLists.txt; paths are relative to this file.
set(retcon_capi_c_tests_dir ${CMAKE_CURRENT_LIST_DIR})

# capi:header_alone - retcon.h alone as strict C11 with gcc and clang (each that is installed);
# tests/capi/header_alone.cmake also checks that the flags are in effect.
find_program(RETCON_HEADER_ALONE_GCC NAMES gcc)
find_program(RETCON_HEADER_ALONE_CLANG NAMES clang)
set(retcon_header_alone_compilers "")
foreach(cc IN ITEMS "${RETCON_HEADER_ALONE_GCC}" "${RETCON_HEADER_ALONE_CLANG}")
  if(cc)
    list(APPEND retcon_header_alone_compilers "${cc}")
  endif()
endforeach()
string(REPLACE ";" "," retcon_header_alone_compilers "${retcon_header_alone_compilers}")
add_test(NAME capi:header_alone
  COMMAND ${CMAKE_COMMAND}
    -DSOURCE=${retcon_capi_c_tests_dir}/header_alone.c
    -DINCLUDE_DIR=${PROJECT_SOURCE_DIR}/capi/include
    -DOUT_DIR=${CMAKE_CURRENT_BINARY_DIR}/header_alone
    -DCOMPILERS=${retcon_header_alone_compilers}
    -P ${retcon_capi_c_tests_dir}/header_alone.cmake)
