# Finds the third-party libraries retcon links privately: zstd (CMake package), xxHash and
# ENet (pkg-config only on Debian). Used by the build and re-run by retconConfig.cmake.
include_guard(GLOBAL)
find_package(PkgConfig REQUIRED)
find_package(zstd CONFIG QUIET)
if(TARGET zstd::libzstd_shared)
  set(RETCON_ZSTD_TARGET zstd::libzstd_shared)
elseif(TARGET zstd::libzstd_static)
  set(RETCON_ZSTD_TARGET zstd::libzstd_static)
else()
  pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
  set(RETCON_ZSTD_TARGET PkgConfig::ZSTD)
endif()
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
