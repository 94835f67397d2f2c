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
# One test a core where the wall-clock scripts run (they compare live figures, such as a windowed
# player's round trip against a headless one's, which tests fighting for the cores skew); two a
# core under the asan preset, which leaves them out and whose tests mostly wait on sockets and
# child processes (docs/testing.md, "Build time").
jobs=$(nproc 2>/dev/null || echo 1)
if [ "$preset" = asan ]; then jobs=$((2 * jobs)); fi
ctest --preset "$preset" -j"$jobs" --timeout 600
