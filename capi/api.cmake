# The C API's machine-readable description, made from retcon.h at build time (docs/c-api.md).
# Included from capi/CMakeLists.txt after the target retcon_c and RETCON_C_HEADER (the path of
# retcon.h) exist.
#
# Target retcon_c_api_description writes ${CMAKE_BINARY_DIR}/capi/retcon_api.json: the
# functions, structs, enums and typedefs of retcon.h from clang's JSON AST
# (clang -Xclang -ast-dump=json -fsyntax-only -x c retcon.h), reduced by
# capi/tools/api_description.py, plus RC_ABI_VERSION and RC_NULL_ENTITY read from the header's
# #define lines (macros are not in the AST). It is rebuilt whenever the header or the tool
# changes, built with retcon_c, and installed as ${CMAKE_INSTALL_DATADIR}/retcon/retcon_api.json.
# capi/tools/gen_ctypes.py turns it into Python ctypes declarations (tests/capi/test_python.py).
#
# Needs clang (scripts/setup.sh --clang) and Python 3. Without them the target does not exist,
# configure says so, and the capi:python test is skipped (tests/capi/python_tests.cmake).
if(NOT TARGET retcon_c)
  message(FATAL_ERROR "capi/api.cmake: include it after add_library(retcon_c ...)")
endif()
if(NOT DEFINED RETCON_C_HEADER OR NOT EXISTS "${RETCON_C_HEADER}")
  message(FATAL_ERROR "capi/api.cmake: RETCON_C_HEADER ('${RETCON_C_HEADER}') is not the path of retcon.h")
endif()

find_package(Python3 COMPONENTS Interpreter)
find_program(RETCON_CLANG NAMES clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14
  DOC "clang, for the C API description (-ast-dump=json)")

set(RETCON_C_API_DESCRIPTION "${CMAKE_BINARY_DIR}/capi/retcon_api.json")
if(RETCON_CLANG AND EXISTS "${RETCON_CLANG}" AND Python3_Interpreter_FOUND)
  set(retcon_api_tool "${CMAKE_CURRENT_LIST_DIR}/tools/api_description.py")
  add_custom_command(
    OUTPUT "${RETCON_C_API_DESCRIPTION}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${CMAKE_BINARY_DIR}/capi"
    COMMAND Python3::Interpreter "${retcon_api_tool}"
      --clang "${RETCON_CLANG}" --header "${RETCON_C_HEADER}" --out "${RETCON_C_API_DESCRIPTION}"
    DEPENDS "${RETCON_C_HEADER}" "${retcon_api_tool}"
    COMMENT "Describing the C API (clang's AST of retcon.h -> capi/retcon_api.json)"
    VERBATIM)
  add_custom_target(retcon_c_api_description ALL DEPENDS "${RETCON_C_API_DESCRIPTION}")
  # Whoever builds the library gets its description, so the two cannot drift apart.
  add_dependencies(retcon_c retcon_c_api_description)
  if(RETCON_INSTALL)
    install(FILES "${RETCON_C_API_DESCRIPTION}" DESTINATION "${CMAKE_INSTALL_DATADIR}/retcon")
  endif()
else()
  set(retcon_api_missing "")
  if(NOT RETCON_CLANG OR NOT EXISTS "${RETCON_CLANG}")
    list(APPEND retcon_api_missing "clang (scripts/setup.sh --clang installs it)")
  endif()
  if(NOT Python3_Interpreter_FOUND)
    list(APPEND retcon_api_missing "python3")
  endif()
  string(JOIN " and " retcon_api_missing ${retcon_api_missing})
  message(STATUS "retcon: no ${retcon_api_missing}: the C API description (retcon_api.json) is not built "
                 "and the capi:python test is skipped")
endif()
