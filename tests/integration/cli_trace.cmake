# `retcon trace` once, then the strict checker on what it wrote (docs/cli.md, "trace").
#   cmake -DRETCON=<tool> -DCHECKER=<retcon_trace_check> -DREPLAY=<file.rcr> -DOUT=<t.json>
#         -DEXPECT_EXIT=<n> [-DEXPECT_OUT=<regex>] [-DEXPECT_ERR=<regex>] [-DEXPECT_CHECK=<regex>]
#         [-DCUT=<bytes>] [-DEXTRA=a|b] [-DNO_MKDIR=1] -P cli_trace.cmake
# A run that fails must leave no file at OUT (it is removed first); one that succeeds must write a
# trace the checker passes, its summary line matching EXPECT_CHECK. CUT first cuts REPLAY to its
# first <bytes> bytes (a writer that crashed), next to OUT.
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
foreach(v RETCON CHECKER REPLAY OUT EXPECT_EXIT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "cli_trace.cmake needs -D${v}=...")
  endif()
endforeach()
get_filename_component(out_dir "${OUT}" DIRECTORY)
if(NOT NO_MKDIR) # -DNO_MKDIR=1: OUT's directory is meant not to exist
  file(MAKE_DIRECTORY "${out_dir}")
endif()
file(REMOVE "${OUT}")
set(replay "${REPLAY}")
if(DEFINED CUT)
  set(replay "${OUT}.cut.rcr")
  execute_process(COMMAND head -c ${CUT} "${REPLAY}" OUTPUT_FILE "${replay}" RESULT_VARIABLE cut_rc)
  if(NOT cut_rc EQUAL 0)
    message(FATAL_ERROR "could not cut ${REPLAY} to ${CUT} bytes")
  endif()
endif()
set(extra "")
if(DEFINED EXTRA)
  string(REPLACE "|" ";" extra "${EXTRA}")
endif()
execute_process(COMMAND ${RETCON} trace "${replay}" --out "${OUT}" ${extra}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
retcon_cli_expect("retcon trace ${replay} --out ${OUT} ${extra}" "${rc}" "${out}" "${err}")
if(NOT rc EQUAL 0)
  if(EXISTS "${OUT}")
    message(FATAL_ERROR "a failed run left ${OUT} behind\n${report}")
  endif()
  message(STATUS "ok: refused (${rc}), no file written")
  return()
endif()
execute_process(COMMAND ${CHECKER} "${OUT}" RESULT_VARIABLE check_rc OUTPUT_VARIABLE check_out ERROR_VARIABLE check_err)
if(NOT check_rc EQUAL 0)
  message(FATAL_ERROR "the trace fails the strict checker\n${check_out}${check_err}\n${report}")
endif()
if(DEFINED EXPECT_CHECK AND NOT check_out MATCHES "${EXPECT_CHECK}")
  message(FATAL_ERROR "the checker's summary does not match '${EXPECT_CHECK}': ${check_out}\n${report}")
endif()
message(STATUS "ok: ${check_out}")
