# Installs the build tree into a scratch prefix and builds + runs examples/consumer against it,
# builds and runs the C and C++ examples by hand with pkg-config (docs/c-api.md's commands),
# then checks that the determinism flags travel with the targets (docs/determinism.md#compiler-flags):
# the consumer's C++ and C compile commands carry -ffp-contract=off, and neither opt-out
# (the RETCON_NO_DETERMINISM_FLAGS variable, the target property) leaves it there.
cmake_minimum_required(VERSION 3.21) # policies for this script (IN_LIST, string(JSON))
file(REMOVE_RECURSE "${SCRATCH}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${SCRATCH}/prefix"
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install failed: ${err}")
endif()
foreach(installed lib/cmake/retcon/retconConfig.cmake bin/retcon bin/retcon-relay)
  if(NOT EXISTS "${SCRATCH}/prefix/${installed}")
    message(FATAL_ERROR "${installed} was not installed")
  endif()
endforeach()

# configure_consumer(<build dir> <extra cmake arguments>...)
function(configure_consumer dir)
  execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/consumer" -B "${dir}"
      -G "${GENERATOR}" -DCMAKE_PREFIX_PATH=${SCRATCH}/prefix -DCMAKE_BUILD_TYPE=Release
      -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
      "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
      "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}" ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer configure (${ARGN}) failed: ${out}\n${err}")
  endif()
endfunction()

# expect_flag(<build dir> YES|NO <what>): every compile command of the consumer (hello_world.cpp,
# fma_candidate.c) has / has not -ffp-contract=off.
function(expect_flag dir want what)
  file(READ "${dir}/compile_commands.json" json)
  string(JSON count LENGTH "${json}")
  set(seen "")
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON file GET "${json}" ${i} file)
    string(JSON command GET "${json}" ${i} command)
    get_filename_component(name "${file}" NAME)
    list(APPEND seen ${name})
    if(command MATCHES "(^| )-ffp-contract=off( |$)")
      set(has YES)
    else()
      set(has NO)
    endif()
    if(NOT has STREQUAL want)
      message(FATAL_ERROR "${what}: -ffp-contract=off present: ${has}, expected ${want}, in\n${command}")
    endif()
  endforeach()
  foreach(name hello_world.cpp fma_candidate.c hello_c.c)
    if(NOT name IN_LIST seen)
      message(FATAL_ERROR "${what}: no compile command for ${name} (saw ${seen})")
    endif()
  endforeach()
  message(STATUS "${what}: -ffp-contract=off ${want} for ${seen}")
endfunction()

if(CXX_FLAGS MATCHES "ffp-contract")
  message(FATAL_ERROR "CMAKE_CXX_FLAGS (${CXX_FLAGS}) sets -ffp-contract itself: the flag checks would prove nothing")
endif()

# 1. As a game uses it: the flag arrives with the targets; build and run.
configure_consumer("${SCRATCH}/build")
expect_flag("${SCRATCH}/build" YES "default consumer")
execute_process(COMMAND ${CMAKE_COMMAND} --build "${SCRATCH}/build" -j2
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer build failed: ${out}\n${err}")
endif()
execute_process(COMMAND "${SCRATCH}/build/consumer" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "frames: 10")
  message(FATAL_ERROR "consumer ran wrong (${rc}): ${out}")
endif()
# The C game runs against the installed libretcon_c.so.0 (found through the imported target's RPATH).
execute_process(COMMAND "${SCRATCH}/build/c_consumer" RESULT_VARIABLE rc OUTPUT_VARIABLE c_out ERROR_VARIABLE c_err)
if(NOT rc EQUAL 0 OR NOT c_out MATCHES "frames: 10, world hash")
  message(FATAL_ERROR "C consumer ran wrong (${rc}): ${c_out}${c_err}")
endif()

# 2. Without CMake, through the installed pkg-config files (cmake/pkgconfig.cmake).
foreach(pc retcon retcon_c)
  if(NOT EXISTS "${SCRATCH}/prefix/${LIBDIR}/pkgconfig/${pc}.pc")
    message(FATAL_ERROR "${LIBDIR}/pkgconfig/${pc}.pc was not installed")
  endif()
endforeach()
# A sanitized tree needs sanitized programs built by its own compilers (a sanitizer's runtime is
# the compiler's): cc and c++ are wrapped to call them with the tree's flags, so the commands
# below stay as written.
set(by_hand "${SCRATCH}/by-hand")
file(MAKE_DIRECTORY "${by_hand}/bin")
set(path_env "$ENV{PATH}")
if(NOT CXX_FLAGS STREQUAL "" OR NOT LINK_FLAGS STREQUAL "")
  set(real_cc "${C_COMPILER}")
  set(real_c++ "${CXX_COMPILER}")
  foreach(compiler cc c++)
    file(WRITE "${by_hand}/bin/${compiler}" "#!/bin/sh\nexec '${real_${compiler}}' \"$@\" ${CXX_FLAGS} ${LINK_FLAGS}\n")
    file(CHMOD "${by_hand}/bin/${compiler}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  endforeach()
  set(path_env "${by_hand}/bin:${path_env}")
endif()
# run_by_hand(<name> <script>): runs the shell script in ${by_hand}; its output must show the
# program ran (hello_world and hello_c print "frames: 10").
function(run_by_hand name script)
  file(WRITE "${by_hand}/${name}.sh" "${script}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env "PATH=${path_env}" sh -e "${by_hand}/${name}.sh"
    WORKING_DIRECTORY "${by_hand}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "frames: 10")
    message(FATAL_ERROR "${name} failed (${rc}), running:\n${script}\n${out}${err}")
  endif()
  message(STATUS "${name}: ${out}")
endfunction()

# docs/c-api.md's block, as written, with the scratch prefix and examples/hello_c.c as game.c:
# pkg-config finds retcon_c.pc, and the program finds libretcon_c.so.0 when run.
file(READ "${SOURCE_DIR}/docs/c-api.md" doc)
if(NOT doc MATCHES "<!-- the installed-package test runs this block[^>]*-->\n```sh\n([^`]*)```")
  message(FATAL_ERROR "docs/c-api.md has no sh block after its installed-package-test comment")
endif()
string(REPLACE "<prefix>" "${SCRATCH}/prefix" c_block "${CMAKE_MATCH_1}")
file(COPY_FILE "${SOURCE_DIR}/examples/hello_c.c" "${by_hand}/game.c")
run_by_hand(docs_c_api_pkg_config "${c_block}")

# The C++ libraries the same way (retcon.pc): static archives and their dependencies.
run_by_hand(cxx_pkg_config "export PKG_CONFIG_PATH='${SCRATCH}/prefix/${LIBDIR}/pkgconfig'
c++ -std=c++20 '${SOURCE_DIR}/examples/hello_world.cpp' $(pkg-config --cflags --libs retcon) -o hello_world
./hello_world
")

# 3. The project-wide opt-out, read by retconConfig.cmake at find_package(retcon).
configure_consumer("${SCRATCH}/build-no-flags" -DRETCON_NO_DETERMINISM_FLAGS=ON)
expect_flag("${SCRATCH}/build-no-flags" NO "RETCON_NO_DETERMINISM_FLAGS=ON")

# 4. The per-target opt-out: the consuming target's RETCON_NO_DETERMINISM_FLAGS property.
configure_consumer("${SCRATCH}/build-target-opt-out" -DCONSUMER_OPT_OUT_TARGET=ON)
expect_flag("${SCRATCH}/build-target-opt-out" NO "target property RETCON_NO_DETERMINISM_FLAGS")

message(STATUS "installed package consumer ok:\n${out}")
