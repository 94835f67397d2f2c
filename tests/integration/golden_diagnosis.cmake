# The cross-architecture matrix's host side, run on the host (docs/determinism.md):
#  1. demo_golden writes the golden trace; golden_check (the program every target runs) agrees
#     with it frame by frame;
#  2. with a divergence on demand (GOLDEN_CHECK_PERTURB_FRAME), golden_check names the first
#     diverging frame and writes its image, and the host's tools name the pool and field
#     that differ: demo_golden wrap + demo_golden image + retcon diff.
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}")
function(run expect_rc)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "${ARGN}\nexited ${rc}, expected ${expect_rc}:\n${out}${err}")
  endif()
  set(out "${out}${err}" PARENT_SCOPE)
endfunction()

run(0 ${GOLDEN} trace ${REFERENCE} ${SCRATCH}/golden.rct 600)
run(0 ${CHECK} ${SCRATCH}/golden.rct ${SCRATCH})
if(NOT out MATCHES "10800 frames agree with the golden.*18 save/restore cycles")
  message(FATAL_ERROR "golden_check did not report full agreement:\n${out}")
endif()

run(1 ${CMAKE_COMMAND} -E env GOLDEN_CHECK_PERTURB_FRAME=5000 ${CHECK} ${SCRATCH}/golden.rct ${SCRATCH})
if(NOT out MATCHES "DIVERGED at frame 5001: world hash differs after frame 5000.*retcon diff.*regenerate-goldens.sh")
  message(FATAL_ERROR "golden_check did not name the divergence:\n${out}")
endif()
if(NOT EXISTS ${SCRATCH}/frame-5001.img)
  message(FATAL_ERROR "golden_check did not write its image at the diverging frame")
endif()
run(0 ${GOLDEN} wrap ${SCRATCH}/frame-5001.img ${SCRATCH}/target.rcs)
run(0 ${GOLDEN} image ${REFERENCE} 5001 ${SCRATCH}/host.rcs)
run(1 ${RETCON} diff ${SCRATCH}/host.rcs ${SCRATCH}/target.rcs)
if(NOT out MATCHES "pool position" OR NOT out MATCHES "\n +x: 0x")
  message(FATAL_ERROR "retcon diff did not name the position pool and its x field:\n${out}")
endif()
message(STATUS "divergence at frame 5001 named:\n${out}")
