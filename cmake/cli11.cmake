# CLI11 (Debian's libcli11-dev, header-only) for the command-line programs, and the code they share.
include_guard(GLOBAL)
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
add_library(retcon_cli11 INTERFACE)
target_include_directories(retcon_cli11 SYSTEM INTERFACE ${CLI11_INCLUDE_DIR})
# GCC 12 at -O2 reports a "potential null pointer dereference" inside libstdc++ code inlined
# from CLI11's string splitting (a false positive in third-party code); keep -Werror usable.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(retcon_cli11 INTERFACE -Wno-null-dereference)
endif()

# What the command-line programs share beside CLI11 (tools/common: the exit-code table).
add_library(retcon_tool_common INTERFACE)
target_include_directories(retcon_tool_common INTERFACE ${PROJECT_SOURCE_DIR}/tools/common)
target_link_libraries(retcon_cli11 INTERFACE retcon_tool_common)
