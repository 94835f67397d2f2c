# What the tool tests check of a run (included by cli.cmake and cli_trace.cmake).
# retcon_cli_expect(<shown> <rc> <out> <err>): fails the test, printing the report, unless the run
# shown as <shown> exited with EXPECT_EXIT and its stdout and stderr match EXPECT_OUT and
# EXPECT_ERR (each when it is set). Sets `report` in the caller's scope for its own checks.
function(retcon_cli_expect shown rc out err)
  set(report "${shown}\n--- exit ${rc} (expected ${EXPECT_EXIT})\n--- stdout\n${out}\n--- stderr\n${err}")
  if(NOT rc STREQUAL "${EXPECT_EXIT}")
    message(FATAL_ERROR "unexpected exit code\n${report}")
  endif()
  if(DEFINED EXPECT_OUT AND NOT out MATCHES "${EXPECT_OUT}")
    message(FATAL_ERROR "stdout does not match '${EXPECT_OUT}'\n${report}")
  endif()
  if(DEFINED EXPECT_ERR AND NOT err MATCHES "${EXPECT_ERR}")
    message(FATAL_ERROR "stderr does not match '${EXPECT_ERR}'\n${report}")
  endif()
  set(report "${report}" PARENT_SCOPE)
endfunction()
