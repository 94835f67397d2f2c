# Compiles tests/capi/header_alone.c (retcon.h alone) as strict C11 with each compiler given:
#   cmake -DSOURCE=<header_alone.c> -DINCLUDE_DIR=<capi/include> -DOUT_DIR=<dir>
#         -DCOMPILERS=<cc1,cc2,...> -P header_alone.cmake
# A control first proves the flags bite: a file with one pedantic violation must be refused by
# every compiler, so a compiler that ignored the flags cannot pass the real check.
foreach(var SOURCE INCLUDE_DIR OUT_DIR COMPILERS)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "header_alone.cmake: ${var} is not set")
  endif()
endforeach()
string(REPLACE "," ";" compilers "${COMPILERS}")
set(flags -std=c11 -Wall -Wextra -pedantic -Werror)
string(JOIN " " flags_text ${flags})

file(MAKE_DIRECTORY "${OUT_DIR}")
set(control "${OUT_DIR}/header_alone_control.c")
# ISO C has no empty declaration at file scope: a stray ';' there is a -pedantic warning.
file(WRITE "${control}" "#include <retcon.h>\n;\nint header_alone_control(void) { return (int)RC_OK; }\n")

set(failed FALSE)
foreach(cc IN LISTS compilers)
  get_filename_component(cc_name "${cc}" NAME)
  execute_process(
    COMMAND "${cc}" ${flags} -I "${INCLUDE_DIR}" -c "${control}" -o "${OUT_DIR}/control_${cc_name}.o"
    RESULT_VARIABLE control_result OUTPUT_VARIABLE control_out ERROR_VARIABLE control_out)
  if(control_result EQUAL 0 OR NOT control_out MATCHES "outside of a function")
    message(SEND_ERROR "${cc_name}: the control (a stray ';' at file scope) was not refused for that reason "
                       "with ${flags_text}:\n${control_out}")
    set(failed TRUE)
  endif()
  execute_process(
    COMMAND "${cc}" ${flags} -I "${INCLUDE_DIR}" -c "${SOURCE}" -o "${OUT_DIR}/header_alone_${cc_name}.o"
    RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(result EQUAL 0)
    message(STATUS "${cc_name} ${flags_text}: retcon.h compiles alone")
  else()
    message(SEND_ERROR "${cc_name} ${flags_text}: retcon.h does not compile alone:\n${out}")
    set(failed TRUE)
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "retcon.h is not clean C11")
endif()
