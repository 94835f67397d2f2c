#!/usr/bin/env bash
# check_list.sh SOURCE_DIR LIST_FILE: the headers tests/headers/CMakeLists.txt compiles alone
# (LIST_FILE, one path a line) are exactly the ones git tracks under */include/ outside tests/.
# A header missing from the list, or listed but gone, fails with its name. Exit 77 (skipped):
# not a git checkout.
set -euo pipefail
src=$1 list=$2
# tests/ is left out: the test support library's headers (tests/support/include) are not public.
if ! tracked=$(git -C "$src" ls-files -- '*/include/*.hpp' ':!tests/' 2>/dev/null) || [ -z "$tracked" ]; then
  echo "skipped: $src is not a git checkout"
  exit 77
fi
missing=$(comm -23 <(printf '%s\n' "$tracked" | sort -u) <(sort -u "$list"))
extra=$(comm -13 <(printf '%s\n' "$tracked" | sort -u) <(sort -u "$list"))
status=0
if [ -n "$missing" ]; then
  echo "FAIL: public headers not in tests/headers/CMakeLists.txt (add them to retcon_public_headers):"
  printf '  %s\n' $missing
  status=1
fi
if [ -n "$extra" ]; then
  echo "FAIL: listed in tests/headers/CMakeLists.txt but not tracked by git:"
  printf '  %s\n' $extra
  status=1
fi
[ "$status" -eq 0 ] && echo "ok: $(printf '%s\n' "$tracked" | wc -l) public headers, each compiled alone"
exit "$status"
