# capi:c_and_cpp_schemas_agree: one layout declared in C (c_schema_probe.c, through
# rc_schema_*) and in C++ (cpp_writer.cpp, RETCON_COMPONENT / RETCON_RESOURCE / RETCON_TAG)
# must give the same schema hash; the layout covers a tag, two resources, a group, a nested
# record (alone and as an array), text, an entity field, a bool and a u64 after explicit
# padding. The negative case: renaming one field (body.vy -> vz) gives another hash, and
# rc_schema_differences names what differs.
#
#   cmake -DC_PROBE=<c_schema_probe> -DCPP_WRITER=<cpp_writer> -P schemas_agree.cmake
foreach(var C_PROBE CPP_WRITER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "schemas_agree.cmake: ${var} is not set")
  endif()
endforeach()

function(run_program out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    string(JOIN " " cmd ${ARGN})
    message(FATAL_ERROR "${cmd} failed (${result}):\n${out}${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# The 16-hex-digit value after `label` in `text`.
function(hash_after text label out_var)
  if(NOT text MATCHES "${label} ([0-9a-f]+)\n")
    message(FATAL_ERROR "no '${label}' line in:\n${text}")
  endif()
  set(${out_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

run_program(cpp_out "${CPP_WRITER}" --hash)
run_program(c_out "${C_PROBE}" --hash)
run_program(renamed_out "${C_PROBE}" --renamed)
hash_after("${cpp_out}" "schema hash" cpp_hash)
hash_after("${c_out}" "schema hash" c_hash)
hash_after("${renamed_out}" "schema hash" c_hash_again)
hash_after("${renamed_out}" "renamed hash" renamed_hash)

set(failed FALSE)
if(NOT c_hash STREQUAL cpp_hash)
  message(SEND_ERROR "the layout declared in C hashes to ${c_hash}, in C++ to ${cpp_hash}.\n"
                     "C++ schema (cpp_writer --hash):\n${cpp_out}")
  set(failed TRUE)
endif()
if(NOT c_hash_again STREQUAL c_hash)
  message(SEND_ERROR "the same C declaration hashed twice gave ${c_hash} and ${c_hash_again}")
  set(failed TRUE)
endif()
if(renamed_hash STREQUAL cpp_hash)
  message(SEND_ERROR "renaming body.vy to vz did not change the schema hash (${renamed_hash})")
  set(failed TRUE)
endif()
# rc_schema_differences must report the change, naming the component, and nothing for equal
# schemas (c_schema_probe checks that itself).
string(REGEX MATCHALL "difference: [^\n]*" differences "${renamed_out}")
list(LENGTH differences n_differences)
if(n_differences EQUAL 0)
  message(SEND_ERROR "rc_schema_differences reported nothing for a renamed field:\n${renamed_out}")
  set(failed TRUE)
elseif(NOT renamed_out MATCHES "difference: [^\n]*body")
  message(SEND_ERROR "rc_schema_differences does not name the component 'body':\n${renamed_out}")
  set(failed TRUE)
elseif(NOT renamed_out MATCHES "difference: [^\n]*'?vy'?[^\n]*'?vz'?")
  message(SEND_ERROR "rc_schema_differences does not name the renamed field (vy vs vz):\n${renamed_out}")
  set(failed TRUE)
endif()
if(failed)
  message(FATAL_ERROR "the C and C++ declarations of one layout disagree")
endif()
message(STATUS "C and C++ agree: schema hash ${c_hash}; renamed field: ${renamed_hash}")
foreach(line IN LISTS differences)
  message(STATUS "  ${line}")
endforeach()
