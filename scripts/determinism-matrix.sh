#!/usr/bin/env bash
# The cross-architecture determinism matrix (docs/determinism.md#the-cross-architecture-matrix).
#
#   scripts/determinism-matrix.sh [HOST_BUILD]     (default build/ci; built here if missing)
#
# 1. The host (x86-64) verifies the golden match, tests/data/golden_demo.rcr, and writes it
#    uncompressed as a golden trace.
# 2. Each row builds tests/cross with its compiler and target (toolchain files in
#    tests/cross/toolchains) and runs, natively or under qemu:
#      golden_check  every one of the golden's frames to the same world hash, section hashes and
#                    a save/restore cycle every 600 frames;
#      float_world   a float world (a*b+c, sqrt, division) to tests/cross/float_world.expected;
#      control       the float world without retcon's flags, which must DIFFER where the target
#                    can fuse or use x87 (else the matrix is not testing anything);
#    (The whole demo built by clang++ — the file writer and reader, zstd and the client's replay
#    path, which golden_check does not use — is checked by the asan suite, which clang++ builds:
#    docs/testing.md, "Labels".)
# 3. Compile time: tests/cross/i686_refused (a `long` field; a uint64_t after a uint32_t with
#    no padding field) must be refused on i686 with retcon's messages.
# Any disagreement, or a control that agrees, fails the run. A row whose golden diverges has
# its image at the first diverging frame named by `retcon diff` against the host's own.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
host=${1:-build/ci}
out=build/cross
mkdir -p "$out"

scripts/setup.sh --cross
if [ ! -f "$host/CMakeCache.txt" ]; then
  cmake -S . -B "$host" -DCMAKE_BUILD_TYPE=Release -DRETCON_BUILD_BENCHMARKS=OFF >/dev/null
fi
cmake --build "$host" -j2 --target demo_golden retcon_cli
golden_tool=$host/tests/integration/demo_golden
trace_out=$("$golden_tool" trace tests/data/golden_demo.rcr "$out/golden.rct" 600)
echo "$trace_out"
golden_frames=$(sed -n 's/.*: \([0-9]*\) frames, .*/\1/p' <<<"$trace_out")
if [ -z "$golden_frames" ] || ((golden_frames == 0)); then
  echo "the golden trace has no frames"
  exit 1
fi

# Does this CPU run x86-64-v3 code? Otherwise that row runs under qemu-x86_64 -cpu max.
emulate_v3=OFF
if ! grep -qw avx2 /proc/cpuinfo || ! grep -qw fma /proc/cpuinfo; then emulate_v3=ON; fi

# name | configure arguments | control options ("-" = no control on this row: baseline x86-64
# has neither FMA nor x87 maths, so its control would rightly agree)
rows=(
  "x86-64 g++|-DCMAKE_CXX_COMPILER=g++|-"
  "x86-64 clang++|-DCMAKE_CXX_COMPILER=clang++|-"
  "x86-64-v3 g++|--toolchain $root/tests/cross/toolchains/x86-64-v3.cmake -DRETCON_CROSS_EMULATE=$emulate_v3|-ffp-contract=fast"
  "aarch64 g++|--toolchain $root/tests/cross/toolchains/aarch64-gcc.cmake|-ffp-contract=fast"
  "aarch64 clang++|--toolchain $root/tests/cross/toolchains/aarch64-clang.cmake|-ffp-contract=on"
  "i686 g++|--toolchain $root/tests/cross/toolchains/i686-gcc.cmake|-mfpmath=387"
)

expected=$(cat tests/cross/float_world.expected)
float_lines=$(grep -c '^frame [0-9]* hash [0-9a-f]*$' tests/cross/float_world.expected)
# run_float PROGRAM: its output, or a failure unless it ran to the end and printed every line
run_float() {
  local text
  text=$($emulator "$1") || return 1
  (($(grep -c '^frame [0-9]* hash [0-9a-f]*$' <<<"$text") == float_lines)) || return 1
  echo "$text"
}
failures=0
table=()
for row in "${rows[@]}"; do
  IFS='|' read -r name configure control <<<"$row"
  dir=$out/$(echo "$name" | tr ' +' '-p')
  start=$SECONDS
  echo "== $name"
  control_arg=()
  if [ "$control" != "-" ]; then control_arg=("-DRETCON_CROSS_CONTROL_OPTIONS=$control"); fi
  # shellcheck disable=SC2086 # $configure holds several arguments
  cmake -S tests/cross -B "$dir" -G "Unix Makefiles" $configure -DRETCON_CROSS_TRACE="$root/$out/golden.rct" "${control_arg[@]}" >/dev/null
  if ! cmake --build "$dir" -j2 >"$dir/build.log" 2>&1; then
    cat "$dir/build.log"
    echo "$name: build failed"
    exit 1
  fi
  compiler='' compiler_name='' compiler_target='' emulator=''
  source "$dir/row.env" # written by tests/cross/CMakeLists.txt
  triple=$("$compiler" ${compiler_target:+--target=$compiler_target} -dumpmachine)
  # the flags a game gets from linking retcon (float_world has no others)
  flags=$(sed -n 's/^CXX_FLAGS = //p' "$dir/CMakeFiles/float_world.dir/flags.make" |
    grep -oE -- '-O[0-9s]|-march=[^ ]+|-ffp-contract=[a-z]+|-msse2|-mfpmath=[a-z0-9]+' | tr '\n' ' ' || true)

  rm -f "$dir"/frame-*.img
  if golden_out=$($emulator "$dir/golden_check" "$out/golden.rct" "$dir" 2>&1) &&
    grep -q "^golden_check: $golden_frames frames agree with the golden" <<<"$golden_out"; then
    golden="ok"
  else
    golden="FAILED"
    failures=$((failures + 1))
    echo "$golden_out"
    image=$(ls "$dir"/frame-*.img 2>/dev/null | head -1 || true)
    if [ -n "$image" ]; then
      frame=$(basename "$image" .img | sed 's/frame-//')
      "$golden_tool" wrap "$image" "$dir/target.rcs" && "$golden_tool" image tests/data/golden_demo.rcr "$frame" "$dir/host.rcs" &&
        "$host/tools/retcon" diff "$dir/host.rcs" "$dir/target.rcs" || true
    fi
  fi
  echo "$golden_out" | tail -1

  if [ "$(run_float "$dir/float_world")" = "$expected" ]; then
    float="ok"
  else
    float="DIFFERS"
    failures=$((failures + 1))
  fi
  if [ "$control" = "-" ]; then
    ctrl="-"
  elif ! control_out=$(run_float "$dir/float_world_control"); then
    ctrl="FAILED TO RUN ($control)" # a control that did not run proves nothing
    failures=$((failures + 1))
  elif [ "$control_out" != "$expected" ]; then
    ctrl="differs ($control)"
  else
    ctrl="AGREES ($control): misconfigured"
    failures=$((failures + 1))
  fi
  table+=("$(printf '| %-15s | %-12s | %-25s | %-44s | %-8s | %-7s | %-34s | %3d s |' \
    "$name" "$compiler_name" "$triple" "$flags" "$golden" "$float" "$ctrl" $((SECONDS - start)))")
done

echo "== compile time on i686: declarations the i686 ABI would lay out differently are refused"
declare -A refusal=(
  [long_field]="a component field is a wchar_t, long or unsigned long"
  [wide_after_narrow]="is not at a multiple of its width"
)
for case in "${!refusal[@]}"; do
  if case_out=$(i686-linux-gnu-g++ -std=gnu++20 -fsyntax-only -Iecs/include "tests/cross/i686_refused/$case.cpp" 2>&1); then
    echo "$case: compiled on i686; the check that refuses it is broken"
    failures=$((failures + 1))
  elif grep -q "${refusal[$case]}" <<<"$case_out"; then
    echo "$case: refused with retcon's message"
  else
    echo "$case_out" | head -20
    echo "$case: failed to compile on i686, but not with retcon's message"
    failures=$((failures + 1))
  fi
done

echo "== determinism matrix (golden: $(wc -c <tests/data/golden_demo.rcr) byte replay, $(grep -c . tests/cross/float_world.expected) float checkpoints)"
printf '| %-15s | %-12s | %-25s | %-44s | %-8s | %-7s | %-34s | %5s |\n' \
  row compiler "target triple" flags golden float "control (no retcon flags)" time
for line in "${table[@]}"; do echo "$line"; done
if ((failures > 0)); then
  echo "determinism matrix: $failures failure(s)."
  echo "A golden that diverges on purpose (game rules, schema or image layout changed) is regenerated with"
  echo "scripts/regenerate-goldens.sh \"reason\"; tests/cross/float_world.expected with"
  echo "build/cross/x86-64-gpp/float_world > tests/cross/float_world.expected"
  exit 1
fi
echo "determinism matrix: every row agrees with the golden match and the float world; every control differs"
