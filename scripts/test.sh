#!/usr/bin/env bash
# Installs what is missing, configures, builds (-j2) and runs the whole test suite.
#   scripts/test.sh            the CI preset (optimised, debug info, warnings as errors)
#   scripts/test.sh asan       the same suite under AddressSanitizer + UBSan
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"

scripts/setup.sh --clang # clang: the C API description (docs/c-api.md) and its tests
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
ctest --preset "$preset" -j2 --timeout 600
