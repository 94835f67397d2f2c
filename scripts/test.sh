#!/usr/bin/env bash
# Installs what is missing, configures, builds (-j2) and runs the whole test suite.
#   scripts/test.sh            the CI preset (optimised, debug info, warnings as errors)
#   scripts/test.sh asan       the same suite under AddressSanitizer + UBSan
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"

scripts/setup.sh --clang # clang: the C API description (docs/c-api.md) and its tests
cmake --preset "$preset" >/dev/null
# Its own tree, build/$preset: the demo's build/release is optimised without debug information or
# warnings as errors, so nothing of it can be reused. Say so before the long part.
if [ ! -f "build/$preset/.retcon-built" ]; then
  echo "test: first build of build/$preset (every library, tool, test and example: about 10-25 minutes on 2 cores;" \
    "later runs rebuild only what changed)"
fi
cmake --build --preset "$preset"
touch "build/$preset/.retcon-built"
# Twice as many tests as cores: most of them wait (sockets, child processes, the wall clock) more
# than they compute (docs/testing.md, "Build time").
ctest --preset "$preset" -j$((2 * $(nproc 2>/dev/null || echo 1))) --timeout 600
