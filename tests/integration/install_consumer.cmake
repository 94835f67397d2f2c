# Installs the build tree into a scratch prefix and builds + runs examples/consumer against it.
file(REMOVE_RECURSE "${SCRATCH}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${SCRATCH}/prefix"
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install failed: ${err}")
endif()
if(NOT EXISTS "${SCRATCH}/prefix/lib/cmake/retcon/retconConfig.cmake")
  message(FATAL_ERROR "retconConfig.cmake was not installed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/consumer" -B "${SCRATCH}/build"
    -G "${GENERATOR}" -DCMAKE_PREFIX_PATH=${SCRATCH}/prefix -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer configure failed: ${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${SCRATCH}/build" -j2
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer build failed: ${out}\n${err}")
endif()
execute_process(COMMAND "${SCRATCH}/build/consumer" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "frames: 10")
  message(FATAL_ERROR "consumer ran wrong (${rc}): ${out}")
endif()
message(STATUS "installed package consumer ok:\n${out}")
