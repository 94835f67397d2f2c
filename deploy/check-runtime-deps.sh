#!/usr/bin/env bash
# check-runtime-deps.sh BUILD_DIR: does deploy/Containerfile install exactly the Debian packages
# the installed programs need at run time?
#
# Installs BUILD_DIR (`cmake --install`) into a scratch prefix under it, runs ldd on every program
# in its bin/ (what the image copies), maps each shared library to the Debian package that owns
# it (dpkg -S) and fails, naming the program, the library and the package, unless the package is
# in the Containerfile's list (between `# runtime-packages:begin` and `# runtime-packages:end`)
# or in every debian:12 image already. It also fails on a listed package no program needs, unless
# it is data the programs use without linking it (below).
#
# The mapping is only meaningful on the image's distribution: elsewhere the script skips (77).
# Exit status: 0 all needed packages are listed, 1 a mismatch (or a library not found),
# 2 usage or install error, 77 skipped.
set -euo pipefail

# Packages every debian:12 image has (debian:12-slim included), so the image need not list them:
#   libc6       the C library (libc, libm, the dynamic loader); dpkg itself pre-depends on it
#   libgcc-s1   the GCC unwinder; libc6 depends on it
#   libstdc++6  the C++ library; apt depends on it, and apt is in every debian:12 image
base_packages=(libc6 libgcc-s1 libstdc++6)
# Listed packages no program links but the programs need: explained here, one by one.
#   ca-certificates  the CA roots for https (Edgegap's self-stop call, docs/hosting.md)
data_packages=(ca-certificates)

usage() { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
[ $# -eq 1 ] || usage
build=$(cd "$1" 2>/dev/null && pwd) || { echo "check-runtime-deps: no build directory $1" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
containerfile="$here/Containerfile"
cmake_bin=${CMAKE:-cmake}

skip() { echo "check-runtime-deps: skipped: $*"; exit 77; }
command -v dpkg >/dev/null || skip "no dpkg: the packages can only be checked on Debian 12"
command -v ldd >/dev/null || skip "no ldd"
# shellcheck disable=SC1091
{ [ -r /etc/os-release ] && . /etc/os-release; } || true
if [ "${ID:-}" != debian ] || [ "${VERSION_ID:-}" != 12 ]; then
  skip "this is ${PRETTY_NAME:-an unknown system}, not Debian 12: its package names are not the image's"
fi

# The Containerfile's runtime list: the words of the lines between the markers, minus comment
# lines and the shell's line continuations.
mapfile -t listed < <(
  sed -n '/^# runtime-packages:begin/,/^# runtime-packages:end/p' "$containerfile" \
    | grep -v '^[[:space:]]*#' | tr -d "\\\\" | tr -s '[:space:]' '\n' | sed '/^$/d' | sort -u)
((${#listed[@]} > 0)) || { echo "check-runtime-deps: no package list between the runtime-packages markers in $containerfile" >&2; exit 2; }

prefix="$build/deploy-runtime-check"
rm -rf "$prefix"
if ! install_log=$("$cmake_bin" --install "$build" --prefix "$prefix" 2>&1); then
  echo "$install_log" | tail -n 20 >&2
  echo "check-runtime-deps: cmake --install $build failed (build everything first)" >&2
  exit 2
fi

# dpkg -S with the merged-/usr variants: a package may own /lib/... while ldd or realpath says
# /usr/lib/... (or the other way round). Prints the owning package, without its :arch.
owner() {
  local candidates=("$1") p
  case "$1" in
    /usr/*) candidates+=("${1#/usr}") ;;
    *) candidates+=("/usr$1") ;;
  esac
  for p in "${candidates[@]}"; do
    local out
    if out=$(dpkg -S "$p" 2>/dev/null); then
      # "pkg:amd64: /path", or "pkg1, pkg2: /path" (a path several packages own, e.g. a directory)
      out=$(grep -v '^diversion ' <<<"$out" | head -n 1)
      out=${out%%: /*}
      out=${out%%,*}
      echo "${out%%:*}"
      return 0
    fi
  done
  return 1
}

declare -A package_of=() needed_by=() libs_seen=()
failures=0
programs=0
for program in "$prefix"/bin/*; do
  if [ ! -f "$program" ] || [ ! -x "$program" ]; then continue; fi
  # ELF programs only (a script would have no libraries of its own).
  [ "$(head -c 4 "$program" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
  programs=$((programs + 1))
  name=$(basename "$program")
  if ! ldd_out=$(ldd "$program" 2>&1); then
    echo "FAIL $name: ldd failed: $ldd_out"
    failures=$((failures + 1))
    continue
  fi
  while IFS= read -r line; do
    lib=""
    case "$line" in
      *"=> not found"*)
        echo "FAIL $name: ${line%% =>*} is not found"
        failures=$((failures + 1))
        continue ;;
      *"=> /"*) lib=${line#*=> }; lib=${lib%% (*} ;;           # libfoo.so.1 => /path (0x...)
      [[:space:]]/*) lib=${line#"${line%%[![:space:]]*}"}; lib=${lib%% (*} ;; # the loader
      *) continue ;;                                           # linux-vdso: the kernel's
    esac
    case "$lib" in
      "$prefix"/*)
        echo "FAIL $name: loads $lib from the install tree, but the image copies only bin/"
        failures=$((failures + 1))
        continue ;;
    esac
    libs_seen[$lib]=1
    if [ -z "${package_of[$lib]:-}" ]; then
      real=$(realpath "$lib")
      pkg=$(owner "$real" || owner "$lib" || true)
      package_of[$lib]=${pkg:-?}
    fi
    pkg=${package_of[$lib]}
    if [ "$pkg" = "?" ]; then
      echo "FAIL $name: $lib belongs to no Debian package (dpkg -S): the image cannot install it"
      failures=$((failures + 1))
      continue
    fi
    needed_by[$pkg]="${needed_by[$pkg]:-}${needed_by[$pkg]:+ }$name"
    if ! printf '%s\n' "${listed[@]}" "${base_packages[@]}" | grep -qxF "$pkg"; then
      echo "FAIL $name: $lib is in package $pkg, which the Containerfile's runtime list does not install"
      failures=$((failures + 1))
    fi
  done <<<"$ldd_out"
done

((programs > 0)) || { echo "check-runtime-deps: no programs in $prefix/bin (was $build built with RETCON_INSTALL?)" >&2; exit 2; }

for pkg in "${listed[@]}"; do
  [ -n "${needed_by[$pkg]:-}" ] && continue
  if printf '%s\n' "${data_packages[@]}" | grep -qxF "$pkg"; then continue; fi
  echo "FAIL Containerfile installs $pkg, which no program loads and no comment in $0 explains"
  failures=$((failures + 1))
done

echo "check-runtime-deps: $programs programs, ${#libs_seen[@]} libraries, ${#needed_by[@]} packages"
for pkg in $(printf '%s\n' "${!needed_by[@]}" | sort); do
  kind=listed
  printf '%s\n' "${base_packages[@]}" | grep -qxF "$pkg" && kind="in every debian:12 image"
  users=$(tr ' ' '\n' <<<"${needed_by[$pkg]}" | sort -u | tr '\n' ' ')
  echo "  $pkg ($kind): ${users% }"
done
for pkg in "${data_packages[@]}"; do
  printf '%s\n' "${listed[@]}" | grep -qxF "$pkg" && echo "  $pkg (listed, data)"
done
if ((failures > 0)); then
  echo "check-runtime-deps: $failures problem(s); the runtime list is in $containerfile"
  exit 1
fi
echo "check-runtime-deps: ok"
