# The C API's interoperability tests (docs/c-api.md): one layout declared in C, C++ and Python.
# Included by tests/capi/CMakeLists.txt; paths are relative to this file.
#
#   capi:c_and_cpp_schemas_agree  c_schema_probe (C, rc_schema_*) and cpp_writer (C++,
#                                 RETCON_COMPONENT) give the same schema hash; a renamed field
#                                 gives another, and rc_schema_differences names it.
#   capi:python                   tests/capi/test_python.py: ctypes declarations generated from
#                                 the build's API description (capi/api.cmake), a simulation with
#                                 rollback and a verified replay, and a C++ snapshot loaded into a
#                                 Python-declared world. Skipped when the description is not
#                                 built (no clang or python3 at configure time).
#   capi:python_sessions          tests/capi/test_python_sessions.py: a server and two clients
#                                 over rc_sim_network in poll mode, each frame stepped from
#                                 Python; no desync, rollbacks, the clients' confirmed frames
#                                 equal to the server's; poll-mode misuse. Skipped like
#                                 capi:python.
set(retcon_capi_py_dir ${CMAKE_CURRENT_LIST_DIR})


# The C++ side: RETCON_COMPONENT declarations; --hash and --write <file.rcs>.
add_executable(retcon_capi_cpp_writer ${retcon_capi_py_dir}/cpp_writer.cpp)
target_link_libraries(retcon_capi_cpp_writer PRIVATE retcon::snapshot)
retcon_target_warnings(retcon_capi_cpp_writer)

# The C side: --sizes (struct layouts for the ctypes check), --hash and --renamed.
add_executable(retcon_capi_c_schema_probe ${retcon_capi_py_dir}/c_schema_probe.c)
target_link_libraries(retcon_capi_c_schema_probe PRIVATE retcon::c)
retcon_c_target_warnings(retcon_capi_c_schema_probe)

add_test(NAME capi:c_and_cpp_schemas_agree
  COMMAND ${CMAKE_COMMAND}
    -DC_PROBE=$<TARGET_FILE:retcon_capi_c_schema_probe>
    -DCPP_WRITER=$<TARGET_FILE:retcon_capi_cpp_writer>
    -P ${retcon_capi_py_dir}/schemas_agree.cmake)

find_package(Python3 COMPONENTS Interpreter)
if(TARGET retcon_c_api_description AND Python3_Interpreter_FOUND)
  set(retcon_capi_py_scratch ${CMAKE_CURRENT_BINARY_DIR}/python_scratch)
  add_test(NAME capi:python
    COMMAND ${Python3_EXECUTABLE} ${retcon_capi_py_dir}/test_python.py
      $<TARGET_FILE:retcon_c>
      ${CMAKE_BINARY_DIR}/capi/retcon_api.json
      $<TARGET_FILE:retcon_capi_cpp_writer>
      ${retcon_capi_py_scratch}
      --probe $<TARGET_FILE:retcon_capi_c_schema_probe>
      --header ${PROJECT_SOURCE_DIR}/capi/include/retcon.h
      --gen ${PROJECT_SOURCE_DIR}/capi/tools/gen_ctypes.py)
  set_tests_properties(capi:python PROPERTIES TIMEOUT 600)
  add_test(NAME capi:python_sessions
    COMMAND ${Python3_EXECUTABLE} ${retcon_capi_py_dir}/test_python_sessions.py
      $<TARGET_FILE:retcon_c>
      ${CMAKE_BINARY_DIR}/capi/retcon_api.json
      ${retcon_capi_py_scratch}
      --header ${PROJECT_SOURCE_DIR}/capi/include/retcon.h
      --gen ${PROJECT_SOURCE_DIR}/capi/tools/gen_ctypes.py)
  set_tests_properties(capi:python_sessions PROPERTIES TIMEOUT 600)
  retcon_capi_foreign_host(capi:python capi:python_sessions) # sanitizer runtime preloaded
else()
  message(STATUS "retcon: capi:python and capi:python_sessions are skipped: no C API description "
                 "(needs clang and python3, see capi/api.cmake)")
endif()
