# Records the golden script with this build and checks its per-frame hashes against the
# committed golden replay (via the demo client's hash-log comparison).
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}")
execute_process(COMMAND ${GOLDEN} record ${SCRATCH}/fresh.rcr RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "demo_golden failed: ${out}${err}")
endif()
# Dump the fresh replay's hashes by re-simulating it, then compare with the reference file's.
execute_process(COMMAND ${CLIENT} --replay ${SCRATCH}/fresh.rcr --headless RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fresh replay does not verify: ${out}")
endif()
file(READ ${SCRATCH}/fresh.rcr fresh HEX)
file(READ ${REFERENCE} reference HEX)
if(NOT fresh STREQUAL reference)
  message(FATAL_ERROR "this build records the golden script to different bytes than tests/data/golden_demo.rcr")
endif()
message(STATUS "fresh recording is byte-identical to the golden replay")
