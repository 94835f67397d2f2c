# Finds the third-party libraries retcon links privately: zstd (CMake package), xxHash, ENet
# and libsodium (pkg-config only on Debian); for retcon::host also cpp-httplib (its metrics page,
# the orchestrators' HTTP) and nlohmann-json
# and threads. Used by the build and re-run by retconConfig.cmake.
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
pkg_check_modules(ENET REQUIRED IMPORTED_TARGET libenet)
pkg_check_modules(SODIUM REQUIRED IMPORTED_TARGET libsodium)
# Only retcon::host needs these; a consumer without cpp-httplib can use every other target.
# nlohmann-json (header-only) reads the Agones SDK's JSON inside the host's sources only.
pkg_check_modules(HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
find_package(nlohmann_json 3.10 CONFIG QUIET)
find_package(Threads QUIET)
