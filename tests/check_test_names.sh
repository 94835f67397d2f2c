#!/usr/bin/env bash
# catch_discover_tests splits a test's name at ';' (a CMake list separator), and a '[' or ']' in
# a name makes it swallow the names after it into one: either way the pieces match no test
# case, Catch runs nothing and ctest reports a pass. No test case name may hold one (tags, the
# second argument, are where brackets belong).
#   check_test_names.sh TESTS_DIR
set -euo pipefail
if grep -rn --include='*.cpp' 'TEST_CASE("[^"]*[];[]' "$1"; then
  echo "FAIL: the test cases above have ';', '[' or ']' in their names: ctest would never run them"
  exit 1
fi
echo "no test case name holds ';', '[' or ']'"
