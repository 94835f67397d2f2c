# pkg-config files for builds without CMake: retcon.pc (the C++ libraries) and retcon_c.pc (the
# C API), installed in <libdir>/pkgconfig (docs/c-api.md, "Building and linking").
#
# They are written at install time, not at configure time: `cmake --install --prefix P` installs
# into P, which the configure step cannot know, and the files must name the prefix the libraries
# were installed into. DESTDIR staging keeps the final prefix, as it should.
#
# retcon_install_pkgconfig(<name> <template>): writes <name>.pc from cmake/<template> with
#   RETCON_PC_PREFIX       the install prefix (at install time)
#   RETCON_PC_LIBDIR       ${prefix}/<libdir>, or <libdir> if absolute; RETCON_PC_INCLUDEDIR alike
#   RETCON_PC_CFLAGS       the determinism flags (cmake/determinism.cmake)
#   RETCON_PC_REQUIRES     the packages retcon's own libraries link, and RETCON_PC_REQUIRES_FIELD:
#                          Requires.private for shared libraries (their dependencies are NEEDED
#                          entries already), Requires for static archives (every link needs them)
function(retcon_install_pkgconfig name template)
  foreach(kind LIB INCLUDE)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}DIR}")
      set(dir_${kind} "${CMAKE_INSTALL_${kind}DIR}")
    else()
      set(dir_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}DIR}")
    endif()
  endforeach()
  list(JOIN RETCON_DETERMINISM_OPTIONS " " cflags)
  if(BUILD_SHARED_LIBS)
    set(requires_field Requires.private)
  else()
    set(requires_field Requires)
  endif()
  set(out "${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/${name}.pc")
  # \${CMAKE_INSTALL_PREFIX} is read when the install script runs; the rest is fixed here.
  install(CODE "
    set(RETCON_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    set(RETCON_PC_LIBDIR [[${dir_LIB}]])
    set(RETCON_PC_INCLUDEDIR [[${dir_INCLUDE}]])
    set(RETCON_PC_CFLAGS [[${cflags}]])
    set(RETCON_PC_REQUIRES [[libzstd libxxhash libenet libsodium]])
    set(RETCON_PC_REQUIRES_FIELD [[${requires_field}]])
    set(PROJECT_VERSION [[${PROJECT_VERSION}]])
    configure_file([[${PROJECT_SOURCE_DIR}/cmake/${template}]] [[${out}]] @ONLY)
  ")
  install(FILES "${out}" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
