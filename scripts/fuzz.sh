#!/usr/bin/env bash
# Builds the libFuzzer targets (Clang, AddressSanitizer + UBSan) into build/fuzz and runs each
# for SECONDS seconds (default 30), seeded with the golden and corrupt files in tests/data (the
# file readers), one message of each kind (the packet decoder) or a few call sequences (the C
# API, tests/fuzz/capi_fuzz.cpp and tests/fuzz/capi_session_fuzz.cpp).
# The fuzzers run side by side, one a core (each still gets SECONDS of a core); their output is
# in build/fuzz/logs/<fuzzer>.log, its last lines printed. Crashing inputs are written to
# build/fuzz/artifacts/<fuzzer>/; the script fails if any.
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
build=build/fuzz
fuzzers=(snapshot_file_fuzz replay_reader_fuzz packet_decoder_fuzz capi_fuzz capi_session_fuzz)

scripts/setup.sh --fuzz
CC=clang CXX=clang++ cmake -S . -B "$build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DRETCON_BUILD_FUZZERS=ON \
  -DRETCON_BUILD_BENCHMARKS=OFF \
  -DRETCON_BUILD_EXAMPLES=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
  >/dev/null
cmake --build "$build" -j2 --target "${fuzzers[@]}"

mkdir -p "$build/logs"
for fuzzer in "${fuzzers[@]}"; do
  corpus="$build/corpus/$fuzzer"
  artifacts="$build/artifacts/$fuzzer"
  mkdir -p "$corpus" "$artifacts"
  if [ "$fuzzer" = packet_decoder_fuzz ]; then
    # Seeds: one valid message of each kind, produced by the project's own encoder tests.
    printf '\x01\x01\x00' >"$corpus/hello-prefix"; printf '\x04\x00\x00\x00\x00\x00' >"$corpus/input-prefix"
  elif [ "$fuzzer" = capi_fuzz ]; then
    # Seeds: call sequences (one op byte, then its arguments): entities with every component,
    # queries, ring saves and restores, an image with a byte changed, adds of wrong sizes.
    printf '\x0d\xff\x0d\x5a\x0a\x09\x04\x0a\x03\x00\x07\x01' >"$corpus/populate-query-save"
    printf '\x0d\xff\x07\x01\x01\x00\x04\x00\x00\x08\x01\x0a\x0f\x00' >"$corpus/save-change-restore"
    printf '\x0d\x33\x09\x81\x10\x00\x00\x00\x55\x09\x80\x20\x00\x00\x00' >"$corpus/image-damage"
    printf '\x00\x02\x00\x00\xe5\x08\x01\x02\x03\x04\x05\x06\x07\x08\x02\x00\x02\xe1\x00' >"$corpus/wrong-sizes"
  elif [ "$fuzzer" = capi_session_fuzz ]; then
    # Seeds: a match (15 bytes: modes, config, both clients' links), 128 rounds of play to get it
    # running and rolling back, then calls: poll-mode requests done for the wrong frame, an update
    # with one outstanding, request_failed; steps that call update or end_match, return non-zero or
    # update another session; updates going back in time, far ahead, with wrong inputs, a client
    # destroyed and back with its reconnect token; a spectator and a client the server rejects.
    play='\x00\x1f\x0f\x03\x00\x1f\x0f\x04\x00\x1f\x0f\x05\x00\x1f\x0f\x06'
    links='\x28\x18\x28\x18\x1e\x10\x1e\x10'
    printf '\x01\x03\x02\x0f\x01\x07\x00'"$links$play"'\x00\x1f\x0f\x05\x00\x1f\x0f\x06' >"$corpus/callback-play"
    printf '\x0f\x03\x02\x0f\x01\x07\x00'"$links$play"'\x02\x01\x10\x05\x03\x01\x03\x05\x01\x11\x03\x01\x03\x04\x01\x02\x01\x10\x05\x02\x01\x10\x05\x02\x02\x10\x07\x06\x02\x00\x07\x01\x03\x07\x02\x03\x0b\x01\x04\x0b\x01\x10\x0c\x01\x0a\x02\x05\x10\x0e\x00\x00\x0e\x01\x01\x0e\x02\x02\x00\x10\x0f\x01' >"$corpus/poll-misuse"
    printf '\x01\x03\x02\x0f\x01\x07\x00'"$links$play"'\x0f\x01\x00\x01\x00\x00\x02\x0f\x01\x0f\x02\x02\x00\x05\x0f\x00\x00\x08\x01\x00\x04\x0f\x01\x0f\x00\x03\x02\x00\x00\x04\x0f\x01\x13\x00\x13\x05\x13\x0f' >"$corpus/callback-misuse"
    printf '\x0b\x02\x01\x08\x12\x09\x00\x40\x3f\x40\x3f\x10\x00\x10\x00'"$play"'\x02\x00\xd0\x00\x02\x01\xc8\xe5\x02\x02\x30\xf3\x02\x01\xe5\x01\x00\x08\x0f\x01\x0b\x01\x10\x12\x31\x20\x10\x00\x1f\x0f\x03\x00\x1f\x0f\x03\x02\x00\xf2\x00\x00\x10\x0f\x02\x12\x30\x20\x10\x00\x1f\x0f\x03' >"$corpus/time-travel"
    printf '\x11\x02\x01\x0f\x01\x07\xf1\x10\x00\x10\x00\xff\x00\x00\x00'"$play"'\x08\x01\x00\x08\x02\x01\x09\x00\x03\x09\x01\xf0\x0a\x02\x02\x10' >"$corpus/spectator-rejected"
  else
    cp tests/data/*.rcs tests/data/*.rcr tests/data/corrupt/* "$corpus"/
  fi
done

# run_fuzzer NAME: runs it for $seconds; its exit status goes to logs/NAME.status (never fails,
# so that `wait -n` below only counts).
run_fuzzer() {
  local rc=0
  "$build/tests/fuzz/$1" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 \
    -artifact_prefix="$build/artifacts/$1/" -print_final_stats=1 "$build/corpus/$1" \
    >"$build/logs/$1.log" 2>&1 || rc=$?
  echo "$rc" >"$build/logs/$1.status"
}
parallel=$(nproc 2>/dev/null || echo 1)
echo "== ${#fuzzers[@]} fuzzers for ${seconds}s each, $parallel at a time"
running=0
for fuzzer in "${fuzzers[@]}"; do
  rm -f "$build/logs/$fuzzer.status"
  run_fuzzer "$fuzzer" &
  running=$((running + 1))
  if ((running >= parallel)); then
    wait -n
    running=$((running - 1))
  fi
done
wait

status=0
for fuzzer in "${fuzzers[@]}"; do
  rc=$(cat "$build/logs/$fuzzer.status" 2>/dev/null || echo "did not finish")
  if [ "$rc" = 0 ]; then
    echo "== $fuzzer: $(grep -m1 -o 'Done [0-9]* runs in [0-9]* second(s)' "$build/logs/$fuzzer.log" || echo finished)"
    grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)' "$build/logs/$fuzzer.log" | sed 's/^/   /' || true
  else
    tail -n 60 "$build/logs/$fuzzer.log"
    echo "== $fuzzer FAILED (exit $rc): see $build/artifacts/$fuzzer/ and $build/logs/$fuzzer.log" >&2
    status=1
  fi
done
exit "$status"
