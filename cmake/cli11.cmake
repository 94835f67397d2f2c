# CLI11 (Debian's libcli11-dev, header-only) for the command-line programs.
include_guard(GLOBAL)
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
add_library(retcon_cli11 INTERFACE)
target_include_directories(retcon_cli11 SYSTEM INTERFACE ${CLI11_INCLUDE_DIR})
