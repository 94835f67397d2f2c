#!/usr/bin/env bash
# Format and static checks of the C and C++ sources (.clang-format, .clang-tidy; docs/testing.md,
# "Lint"): clang-format --dry-run -Werror, then clang-tidy with build/lint/compile_commands.json.
#   scripts/lint.sh [--all | BASE | --since-lint-base] [--format-only | --tidy-only] [--no-fail]
#                   [--record-base]
#     --all              every tracked .cpp .hpp .h .c file (the default)
#     BASE               the files changed from BASE (a commit, e.g. origin/main or HEAD~3) to the
#                        work tree, and every file that includes a changed header (transitively)
#     --since-lint-base  BASE is the commit in .ci/lint-base, whose tree passed the whole-tree
#                        lint; the whole tree instead when that file is missing, the commit is not
#                        in this clone, or the lint's configuration or clang-tidy changed since
#     --no-fail          report, but exit 0
#     --record-base      after a clean whole-tree lint of a work tree without changes, write HEAD
#                        and this clang-tidy into .ci/lint-base (then commit it)
# clang-tidy reads the .cpp and .c files build/lint compiles (the ci preset without its
# precompiled header; configured on every run) and, for a public header, the unit that
# tests/headers compiles it alone in; it reports the findings in the files checked. Installs
# clang-format-14 and clang-tidy-14 (Debian 12) when missing.
# Exit: 0 clean, 1 findings, 2 usage. Whole tree, 2 cores: clang-format ~5 s, clang-tidy ~6 min.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=all base="" run_format=yes run_tidy=yes fail=yes record=no
for arg in "$@"; do
  case "$arg" in
    --all) mode=all ;;
    --since-lint-base) mode=lint-base ;;
    --record-base) record=yes ;;
    --format-only) run_tidy=no ;;
    --tidy-only) run_format=no ;;
    --no-fail) fail=no ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
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
tidy_version=$("$tidy" --version | sed -n 's/.*LLVM version \([0-9][0-9.]*\).*/\1/p')
# What every finding depends on: a change to one of these is linted over the whole tree.
lint_config=(.clang-format .clang-tidy '*/.clang-format' '*/.clang-tidy' scripts/lint.sh
  CMakePresets.json CMakeLists.txt 'cmake/*')
# changed_since BASE PATHSPEC...: the paths that differ between BASE and the work tree (deleted
# ones too), and those git does not track yet
changed_since() {
  local from=$1
  shift
  { git diff --name-only "$from" -- "$@"; git ls-files --others --exclude-standard -- "$@"; } | sort -u
}

if [ "$mode" = lint-base ]; then
  # .ci/lint-base: "commit <id>" whose tree passed the whole-tree lint, and "clang-tidy <version>"
  # that passed it (docs/testing.md, "Lint"). Anything it cannot vouch for is linted whole.
  why=""
  base=$(sed -n 's/^commit \([0-9a-f]\{7,40\}\)$/\1/p' .ci/lint-base 2>/dev/null || true)
  base_tidy=$(sed -n 's/^clang-tidy \(.*\)$/\1/p' .ci/lint-base 2>/dev/null || true)
  if [ ! -f .ci/lint-base ]; then
    why="there is no .ci/lint-base"
  elif [ -z "$base" ] || ! git cat-file -e "$base^{commit}" 2>/dev/null; then
    why="the lint base ${base:-(none)} is not a commit in this clone"
  elif [ "$base_tidy" != "$tidy_version" ]; then
    why="the lint base was linted by clang-tidy ${base_tidy:-(unknown)}, this is $tidy_version"
  fi
  if [ -n "$why" ]; then
    echo "lint: the whole tree: $why"
    mode=all base=""
  else
    mode=base
  fi
fi
if [ "$mode" = all ]; then
  mapfile -t files < <(git ls-files -- "${patterns[@]}")
else
  git rev-parse --verify -q "$base^{commit}" >/dev/null || { echo "lint: $base is not a commit" >&2; exit 2; }
  mapfile -t config_changed < <(changed_since "$base" "${lint_config[@]}")
  if ((${#config_changed[@]} > 0)); then
    echo "lint: the whole tree: the lint's configuration changed since $base (${config_changed[*]})"
    mode=all
    mapfile -t files < <(git ls-files -- "${patterns[@]}")
  else
    # The changed sources; every C and C++ file under a directory whose CMake changed (its
    # include paths and definitions are the compile commands clang-tidy reads); then every file
    # that includes one of those, directly or through other headers.
    mapfile -t files < <(
      {
        changed_since "$base" "${patterns[@]}"
        changed_since "$base" '*CMakeLists.txt' '*.cmake' | while read -r cm; do
          git ls-files -- "${patterns[@]/#/$(dirname "$cm")/}"
        done
      } | python3 -c '
import os, re, subprocess, sys
# Which file includes which: a grep of the #include lines of the files git knows. A quoted
# include next to its includer is that file; any other spelling is every file whose path ends
# with it (more than the compiler would reach through its include paths, never fewer).
known = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--"] + sys.argv[1:],
                       capture_output=True, text=True, check=True).stdout.split()
by_suffix = {}
for path in known:
    parts = path.split("/")
    for i in range(len(parts)):
        by_suffix.setdefault("/".join(parts[i:]), set()).add(path)
included_by = {}
directive = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]", re.M)
for path in known:
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        continue
    for spelled in directive.findall(text):
        near = os.path.normpath(os.path.join(os.path.dirname(path), spelled))
        for header in ({near} if near in by_suffix.get(spelled, ()) else by_suffix.get(spelled, ())):
            included_by.setdefault(header, set()).add(path)
changed = {line.strip() for line in sys.stdin if line.strip()}
todo = list(changed)
while todo:
    for path in included_by.get(todo.pop(), ()):
        if path not in changed:
            changed.add(path)
            todo.append(path)
print("\n".join(sorted(changed)))
' "${patterns[@]}")
  fi
fi
existing=()
for f in "${files[@]}"; do [ -f "$f" ] && existing+=("$f"); done
files=("${existing[@]+"${existing[@]}"}")
echo "lint: ${#files[@]} files (${mode/base/changed since $base and what includes them})"
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
  # Configured every time (a few seconds): a source added since would not be in a stale list.
  db=build/lint/compile_commands.json
  cmake --preset lint >/dev/null
  # Sources build/lint compiles, and for a public header the unit that compiles it alone
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
        unit = "build/lint/tests/headers/alone/%s/%s.cpp" % (module, re.sub(r"[^A-Za-z0-9_]", "_", name))
        if os.path.realpath(unit) in known:
            print(unit)
PY
)
  filter="^$(pwd)/(ecs|snapshot|net|host|capi|tools|demo_client|demo_server|examples|tests|bench)/"
  if ((${#compiled[@]} > 0)); then
    # -w: compiler warnings are the build's business (-Werror there); clang-tidy reports its checks.
    out=$(printf '%s\0' "${compiled[@]}" | xargs -0 -P "$jobs" -n 4 "$tidy" -p build/lint --quiet \
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
    echo "lint: clang-tidy: none of the files is compiled by build/lint"
  fi
  echo "lint: clang-tidy took $((SECONDS - start)) s"
fi

if [ "$record" = yes ]; then
  # Only a whole, clean, committed tree may vouch for later runs (--since-lint-base).
  if [ "$mode" != all ] || [ "$run_format$run_tidy" != yesyes ] || [ "$status" -ne 0 ]; then
    echo "lint: .ci/lint-base not written: it needs a clean whole-tree run of both checks" >&2
    status=1
  elif [ -n "$(git status --porcelain --untracked-files=normal)" ]; then
    echo "lint: .ci/lint-base not written: the work tree has changes HEAD does not" >&2
    status=1
  else
    printf '%s\n' "# A commit whose whole tree passed scripts/lint.sh --all, and the clang-tidy that passed it" \
      "# (docs/testing.md, \"Lint\"). Written by scripts/lint.sh --all --record-base." \
      "commit $(git rev-parse HEAD)" "clang-tidy $tidy_version" >.ci/lint-base
    echo "lint: .ci/lint-base: commit $(git rev-parse --short HEAD), clang-tidy $tidy_version (commit the file)"
  fi
fi

if [ "$status" -ne 0 ] && [ "$fail" = no ]; then
  echo "lint: findings reported, not failing (--no-fail)"
  exit 0
fi
exit "$status"
