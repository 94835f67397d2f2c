#!/usr/bin/env bash
# Format and static checks of the C and C++ sources (.clang-format, .clang-tidy; docs/testing.md,
# "Lint"): clang-format --dry-run -Werror, then clang-tidy with build/ci/compile_commands.json.
#   scripts/lint.sh [--all | BASE] [--format-only | --tidy-only] [--no-fail]
#     --all        every tracked .cpp .hpp .h .c file (the default)
#     BASE         only the files changed from BASE (a commit, e.g. origin/main or HEAD~3) to the
#                  work tree
#     --no-fail    report, but exit 0
# clang-tidy reads the .cpp and .c files build/ci compiles (configured here if missing) and,
# for a public header, the unit tests/headers compiles it alone in; it reports the findings in
# the files checked. Installs clang-format-14 and clang-tidy-14 (Debian 12) when missing.
# Exit: 0 clean, 1 findings, 2 usage. Whole tree, 2 cores: clang-format ~5 s, clang-tidy ~6 min.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=all base="" run_format=yes run_tidy=yes fail=yes
for arg in "$@"; do
  case "$arg" in
    --all) mode=all ;;
    --format-only) run_tidy=no ;;
    --tidy-only) run_format=no ;;
    --no-fail) fail=no ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "lint: unknown option $arg" >&2; exit 2 ;;
    *) mode=base base=$arg ;;
  esac
done

# The tools: Debian 12's clang 14, installed when missing (as scripts/setup.sh does its packages).
missing=()
for p in clang-format-14 clang-tidy-14; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  echo "lint: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
format=clang-format-14 tidy=clang-tidy-14

patterns=('*.cpp' '*.hpp' '*.h' '*.c')
if [ "$mode" = all ]; then
  mapfile -t files < <(git ls-files -- "${patterns[@]}")
else
  git rev-parse --verify -q "$base^{commit}" >/dev/null || { echo "lint: $base is not a commit" >&2; exit 2; }
  mapfile -t files < <(git diff --name-only --diff-filter=d "$base" -- "${patterns[@]}")
fi
existing=()
for f in "${files[@]}"; do [ -f "$f" ] && existing+=("$f"); done
files=("${existing[@]+"${existing[@]}"}")
echo "lint: ${#files[@]} files (${mode}${base:+ from $base})"
status=0
jobs=$(nproc 2>/dev/null || echo 2)

if [ "$run_format" = yes ] && ((${#files[@]} > 0)); then
  start=$SECONDS
  # The files that would change (one name a line), then clang-format's own words on a few.
  bad=$(printf '%s\0' "${files[@]}" | xargs -0 -P "$jobs" -n 16 sh -c \
    'for f; do "$0" --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"; done' "$format" | sort)
  if [ -n "$bad" ]; then
    printf '%s\n' "$bad" | head -n 3 | xargs "$format" --dry-run -Werror --ferror-limit=2 2>&1 | head -n 30 || true
    echo "lint: clang-format: $(printf '%s\n' "$bad" | wc -l) of ${#files[@]} files not formatted (clang-format-14 -i FILE...):"
    printf '  %s\n' $bad
    status=1
  else
    echo "lint: clang-format: ${#files[@]} files formatted"
  fi
  echo "lint: clang-format took $((SECONDS - start)) s"
fi

if [ "$run_tidy" = yes ] && ((${#files[@]} > 0)); then
  start=$SECONDS
  db=build/ci/compile_commands.json
  if [ ! -f "$db" ]; then cmake --preset ci >/dev/null; fi
  # Sources build/ci compiles, and for a public header the unit that compiles it alone
  # (tests/headers); findings are reported for the files checked only.
  mapfile -t compiled < <(python3 - "$db" "${files[@]}" <<'PY'
import json, os, re, sys
db, files = sys.argv[1], sys.argv[2:]
known = {os.path.realpath(e["file"]) for e in json.load(open(db))}
# Sources that must not compile (the compile-fail tests, the i686 refusals) are not checked.
refused = ("tests/compile_fail/", "tests/cross/i686_refused/")
for f in files:
    if os.path.realpath(f) in known and not f.startswith(refused):
        print(f)
    elif "/include/" in f:
        # A public header: the unit tests/headers generated to compile it alone.
        module, name = f.split("/")[0], f.split("/include/", 1)[1]
        unit = "build/ci/tests/headers/alone/%s/%s.cpp" % (module, re.sub(r"[^A-Za-z0-9_]", "_", name))
        if os.path.realpath(unit) in known:
            print(unit)
PY
)
  filter="^$(pwd)/(ecs|snapshot|net|host|capi|tools|demo_client|demo_server|examples|tests|bench)/"
  if ((${#compiled[@]} > 0)); then
    # -w: compiler warnings are the build's business (-Werror there); clang-tidy reports its checks.
    out=$(printf '%s\0' "${compiled[@]}" | xargs -0 -P "$jobs" -n 4 "$tidy" -p build/ci --quiet \
      --extra-arg=-w --header-filter="$filter" 2>/dev/null || true)
    # A header's finding comes once per source that includes it (by more than one path: a/../a):
    # each is reported once, relative to the tree.
    findings=$(printf '%s\n' "$out" | grep -E '^[^ ].*:[0-9]+:[0-9]+: (warning|error):' |
      sed -e ':a' -e 's|/[^/.][^/]*/\.\./|/|' -e 'ta' -e "s|^$(pwd)/||" | sort -u |
      awk -F: 'NR == FNR { keep[$0] = 1; next } $1 in keep' <(printf '%s\n' "${files[@]}") - || true)
    if [ -n "$findings" ]; then
      printf '%s\n' "$findings"
      echo "lint: clang-tidy: $(printf '%s\n' "$findings" | wc -l) findings in ${#compiled[@]} sources"
      printf '%s\n' "$findings" | sed -n 's/.*\[\([a-z-]*\)[],].*/\1/p' | sort | uniq -c | sort -rn | sed 's/^/  /'
      status=1
    else
      echo "lint: clang-tidy: ${#compiled[@]} sources clean"
    fi
  else
    echo "lint: clang-tidy: none of the files is compiled by build/ci"
  fi
  echo "lint: clang-tidy took $((SECONDS - start)) s"
fi

if [ "$status" -ne 0 ] && [ "$fail" = no ]; then
  echo "lint: findings reported, not failing (--no-fail)"
  exit 0
fi
exit "$status"
