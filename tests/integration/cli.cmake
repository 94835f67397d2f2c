# Runs the retcon tool once and checks its exit code and output.
#   cmake -DRETCON=<tool> -DARGS="a|b|c" -DEXPECT_EXIT=<n>
#         [-DEXPECT_OUT=<regex>] [-DEXPECT_ERR=<regex>] [-DREJECT_OUT=<regex>]
#         [-DCUT=<source>|<bytes>|<destination>] [-DFIFO=<path>] -P cli.cmake
# ARGS separates arguments with '|' (a ';' would be split by add_test). CUT first writes the
# first <bytes> bytes of <source> to <destination>: a file cut short, as by a crash mid-write.
# FIFO first makes <path> a named pipe nobody writes to: a reader that opens it plainly waits
# forever (the TIMEOUT below turns that into a failure).
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
if(NOT DEFINED RETCON OR NOT DEFINED EXPECT_EXIT)
  message(FATAL_ERROR "cli.cmake needs -DRETCON=... and -DEXPECT_EXIT=...")
endif()
if(DEFINED CUT)
  string(REPLACE "|" ";" cut "${CUT}")
  list(GET cut 0 cut_source)
  list(GET cut 1 cut_bytes)
  list(GET cut 2 cut_destination)
  get_filename_component(cut_dir "${cut_destination}" DIRECTORY)
  file(MAKE_DIRECTORY "${cut_dir}")
  # CMake strings cannot hold NUL bytes, so the cut is made by head(1).
  execute_process(COMMAND head -c ${cut_bytes} "${cut_source}"
    OUTPUT_FILE "${cut_destination}" RESULT_VARIABLE cut_rc)
  file(SIZE "${cut_destination}" cut_size)
  if(NOT cut_rc EQUAL 0 OR NOT cut_size EQUAL cut_bytes)
    message(FATAL_ERROR "could not cut ${cut_source} to ${cut_bytes} bytes (got ${cut_size})")
  endif()
endif()
if(DEFINED FIFO)
  get_filename_component(fifo_dir "${FIFO}" DIRECTORY)
  file(MAKE_DIRECTORY "${fifo_dir}")
  file(REMOVE "${FIFO}")
  execute_process(COMMAND mkfifo "${FIFO}" RESULT_VARIABLE fifo_rc)
  if(NOT fifo_rc EQUAL 0)
    message(FATAL_ERROR "could not make the FIFO ${FIFO}")
  endif()
endif()
set(args "")
if(DEFINED ARGS AND NOT ARGS STREQUAL "")
  string(REPLACE "|" ";" args "${ARGS}")
endif()
execute_process(COMMAND ${RETCON} ${args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(DEFINED FIFO)
  file(REMOVE "${FIFO}")
endif()
retcon_cli_expect("retcon ${args}" "${rc}" "${out}" "${err}")
if(DEFINED REJECT_OUT AND out MATCHES "${REJECT_OUT}")
  message(FATAL_ERROR "stdout matches '${REJECT_OUT}' but must not\n${report}")
endif()
message(STATUS "ok: retcon ${args} -> ${rc}")
