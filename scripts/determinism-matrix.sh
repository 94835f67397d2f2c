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
#                    can fuse or use x87 (else the matrix is not testing anything).
# 3. Compile-time: a `long` field is refused on i686 (where long is not int64_t).
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
"$golden_tool" trace tests/data/golden_demo.rcr "$out/golden.rct" 600

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
  cmake -S tests/cross -B "$dir" $configure -DRETCON_CROSS_TRACE="$root/$out/golden.rct" "${control_arg[@]}" >/dev/null
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
    grep -oE -- '-O[0-9s]|-march=[^ ]+|-ffp-contract=[a-z]+|-msse2|-mfpmath=[a-z0-9]+' | tr '\n' ' ')

  rm -f "$dir"/frame-*.img
  if golden_out=$($emulator "$dir/golden_check" "$out/golden.rct" "$dir" 2>&1); then
    golden="ok"
  else
    golden="DIVERGED"
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

  if [ "$($emulator "$dir/float_world")" = "$expected" ]; then
    float="ok"
  else
    float="DIFFERS"
    failures=$((failures + 1))
  fi
  if [ "$control" = "-" ]; then
    ctrl="-"
  elif [ "$($emulator "$dir/float_world_control")" != "$expected" ]; then
    ctrl="differs ($control)"
  else
    ctrl="AGREES ($control): misconfigured"
    failures=$((failures + 1))
  fi
  table+=("$(printf '| %-15s | %-12s | %-25s | %-44s | %-8s | %-7s | %-34s | %3d s |' \
    "$name" "$compiler_name" "$triple" "$flags" "$golden" "$float" "$ctrl" $((SECONDS - start)))")
done

echo "== compile time: a long field on i686 (long is 4 bytes there, not int64_t)"
if long_out=$(i686-linux-gnu-g++ -std=gnu++20 -fsyntax-only -Iecs/include tests/compile_fail/long_field.cpp 2>&1); then
  echo "a long field compiled on i686: the platform-sized type check is broken"
  failures=$((failures + 1))
elif grep -q "a component field is a wchar_t, long or unsigned long" <<<"$long_out"; then
  echo "refused with retcon's message"
else
  echo "$long_out" | head -20
  echo "a long field failed to compile on i686, but not with retcon's message"
  failures=$((failures + 1))
fi

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
