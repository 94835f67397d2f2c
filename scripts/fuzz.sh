#!/usr/bin/env bash
# Builds the libFuzzer targets (Clang, AddressSanitizer + UBSan) into build/fuzz and runs each
# for SECONDS seconds (default 30), seeded with the golden and corrupt files in tests/data.
# Crashing inputs are written to build/fuzz/artifacts/<fuzzer>/; the script fails if any.
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
build=build/fuzz
fuzzers=(snapshot_file_fuzz replay_reader_fuzz packet_decoder_fuzz)

scripts/setup.sh --fuzz
CC=clang CXX=clang++ cmake -S . -B "$build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRETCON_BUILD_FUZZERS=ON \
  -DRETCON_BUILD_BENCHMARKS=OFF \
  -DRETCON_BUILD_EXAMPLES=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
  >/dev/null
cmake --build "$build" -j2 --target "${fuzzers[@]}"

status=0
for fuzzer in "${fuzzers[@]}"; do
  corpus="$build/corpus/$fuzzer"
  artifacts="$build/artifacts/$fuzzer"
  mkdir -p "$corpus" "$artifacts"
  if [ "$fuzzer" = packet_decoder_fuzz ]; then
    # Seeds: one valid message of each kind, produced by the project's own encoder tests.
    printf '\x01\x01\x00' >"$corpus/hello-prefix"; printf '\x04\x00\x00\x00\x00\x00' >"$corpus/input-prefix"
  else
    cp tests/data/*.rcs tests/data/*.rcr tests/data/corrupt/* "$corpus"/
  fi
  echo "== $fuzzer for ${seconds}s"
  if ! "$build/tests/fuzz/$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 \
      -artifact_prefix="$artifacts/" -print_final_stats=1 "$corpus"; then
    echo "== $fuzzer FAILED: see $artifacts/" >&2
    status=1
  fi
done
exit "$status"
