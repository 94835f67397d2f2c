# capi:csharp - the C API from C# through P/Invoke on Mono, in poll mode, as a Unity game reaches
# it (docs/c-api.md, "From C# (Unity)"). Included by tests/capi/CMakeLists.txt.
#
# tests/capi/csharp/RetconTests.cs is compiled with Mono's mcs at build time (target
# retcon_capi_csharp) and run as `mono RetconTests.exe <libretcon_c.so> <c_schema_probe>`: it
# loads the library from that path itself, so the test needs no LD_LIBRARY_PATH, and compares its
# struct declarations with the layouts the C probe (python_tests.cmake) prints. scripts/setup.sh
# installs mcs and mono (Debian mono-mcs, mono-runtime); without them at configure time the test
# is skipped.
find_program(RETCON_MCS NAMES mcs)
find_program(RETCON_MONO NAMES mono)
if(NOT RETCON_MCS OR NOT RETCON_MONO)
  message(STATUS "retcon: capi:csharp is skipped: mcs or mono not found (scripts/setup.sh installs "
                 "mono-mcs and mono-runtime)")
  return()
endif()

set(retcon_capi_cs_source ${CMAKE_CURRENT_LIST_DIR}/csharp/RetconTests.cs)
set(retcon_capi_cs_exe ${CMAKE_CURRENT_BINARY_DIR}/csharp/RetconTests.exe)
add_custom_command(
  OUTPUT ${retcon_capi_cs_exe}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/csharp
  # -unsafe: the step reads components through pointers; warnings are errors as for C and C++
  COMMAND ${RETCON_MCS} -nologo -unsafe -warn:4 -warnaserror+ -out:${retcon_capi_cs_exe} ${retcon_capi_cs_source}
  DEPENDS ${retcon_capi_cs_source}
  COMMENT "Compiling RetconTests.cs with mcs"
  VERBATIM)
add_custom_target(retcon_capi_csharp ALL DEPENDS ${retcon_capi_cs_exe})
add_dependencies(retcon_capi_csharp retcon_c retcon_capi_c_schema_probe) # building the test builds what it runs

add_test(NAME capi:csharp
  COMMAND ${RETCON_MONO} --debug ${retcon_capi_cs_exe} $<TARGET_FILE:retcon_c>
    $<TARGET_FILE:retcon_capi_c_schema_probe>)
set_tests_properties(capi:csharp PROPERTIES TIMEOUT 300)
retcon_capi_foreign_host(capi:csharp) # sanitizer runtime preloaded, as for python3
