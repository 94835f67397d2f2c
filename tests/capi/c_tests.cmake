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

# capi:c_program - a C11 program (compiled as C, linked to retcon::c only) running a simulation
# with rollback, images, snapshot files, replays and queries over aligned and churned layouts.
add_executable(retcon_capi_c_program ${retcon_capi_c_tests_dir}/c_program.c)
target_link_libraries(retcon_capi_c_program PRIVATE retcon::c)
retcon_c_target_warnings(retcon_capi_c_program)
set(retcon_capi_c_scratch ${CMAKE_CURRENT_BINARY_DIR}/c_program_scratch)
file(MAKE_DIRECTORY ${retcon_capi_c_scratch})
add_test(NAME capi:c_program COMMAND retcon_capi_c_program ${retcon_capi_c_scratch})
set_tests_properties(capi:c_program PROPERTIES TIMEOUT 300)

# retcon_capi_tests - one Catch2 case per misuse of the C API (tests/capi/misuse.cpp), and the
# traces written through it (trace.cpp), judged by the strict checker (tests/support/trace).
retcon_add_test_suite(retcon_capi_tests
  SOURCES ${retcon_capi_c_tests_dir}/misuse.cpp ${retcon_capi_c_tests_dir}/session_misuse.cpp
    ${retcon_capi_c_tests_dir}/events.cpp ${retcon_capi_c_tests_dir}/trace.cpp
  LIBS retcon::c retcon::net retcon_trace_checker) # retcon::net: the C++ tables the C enums mirror (events.cpp)
target_compile_definitions(retcon_capi_tests PRIVATE RETCON_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")

# capi:c_sessions_sim / capi:c_sessions_enet - a server and two clients from pure C
# (docs/c-api.md, "Sessions"): over the simulated network in callback and poll mode, and in
# poll mode over real ENet sockets on loopback. capi:c_sessions_reconnect - automatic reconnection
# after the client's link goes dead (rc_client_options.reconnect_attempts).
add_executable(retcon_capi_c_sessions ${retcon_capi_c_tests_dir}/c_sessions.c)
target_link_libraries(retcon_capi_c_sessions PRIVATE retcon::c)
retcon_c_target_warnings(retcon_capi_c_sessions)
set(retcon_capi_c_traces ${CMAKE_CURRENT_BINARY_DIR}/c_sessions_traces)
file(MAKE_DIRECTORY ${retcon_capi_c_traces})
add_test(NAME capi:c_sessions_sim COMMAND retcon_capi_c_sessions sim ${retcon_capi_c_traces})
add_test(NAME capi:c_sessions_enet COMMAND retcon_capi_c_sessions enet)
add_test(NAME capi:c_sessions_reconnect COMMAND retcon_capi_c_sessions reconnect)
set_tests_properties(capi:c_sessions_sim capi:c_sessions_enet capi:c_sessions_reconnect PROPERTIES TIMEOUT 120)
# capi:c_sessions_traces - the traces c_sessions_sim wrote through rc_*_write_trace pass the strict
# checker (tests/support/trace), each with its "c step" slices of the game's (docs/c-api.md, "Traces").
if(TARGET retcon_trace_check)
  set_tests_properties(capi:c_sessions_sim PROPERTIES FIXTURES_SETUP capi_c_traces)
  add_test(NAME capi:c_sessions_traces
    COMMAND retcon_trace_check ${retcon_capi_c_traces}/callback_server.json ${retcon_capi_c_traces}/callback_client.json
      ${retcon_capi_c_traces}/poll_server.json ${retcon_capi_c_traces}/poll_client.json)
  set_tests_properties(capi:c_sessions_traces PROPERTIES FIXTURES_REQUIRED capi_c_traces
    PASS_REGULAR_EXPRESSION "callback_server.json: ok.* c step.*callback_client.json: ok.* c step.*poll_server.json: ok.* c step.*poll_client.json: ok.* c step")
endif()
