#!/usr/bin/env bash
# Instruction counts of client_session::tick and server_session::tick on a seeded match
# (bench/tick_probe.cpp) under callgrind: stable on a noisy shared machine, so two builds can be
# compared exactly (docs/benchmarks.md, "Session tick instructions").
#   bench/callgrind_ticks.sh <path to retcon_tick_probe> [virtual ms] [telemetry frames] [trace records]
# (telemetry frames: every session's telemetry ring, 0 for off; absent: the sessions' default;
# docs/benchmarks.md, "Telemetry on the tick"; trace records: every session's trace ring, 0 or
# absent for off; docs/benchmarks.md, "Tracing on the tick")
# With --modes, the instructions per frame of a session driven in C++ (tick, tick_requests) and
# through the C API (callback, poll mode), each side's calls counted alone on the same seeded match
# (bench/session_probe.cpp; docs/benchmarks.md, "C API", "Sessions: poll mode against the C++
# session"), with each mode's ratio to cpp_tick:
#   bench/callgrind_ticks.sh --modes <path to retcon_session_probe> [measured virtual ms] [ms per update]
set -euo pipefail
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# callgrind's total for the counted function of a run ($1: its output file).
total_ir() {
  # awk reads to the end (no early exit): callgrind_annotate would die of SIGPIPE, and pipefail
  # would end the script there.
  callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ && !done {gsub(",", "", $1); print $1; done = 1}'
}

if [ "${1:-}" = "--modes" ]; then
  probe="$2"
  ms="${3:-10000}"
  every="${4:-2}"
  for side in clients server; do
    base=""
    for mode in cpp_tick cpp_tick_requests c_callback c_poll; do
      valgrind --tool=callgrind --callgrind-out-file="$out/$mode.$side.out" --toggle-collect="probe_$side" \
        "$probe" "$mode" "$ms" "$every" >"$out/$mode.$side.log" 2>&1 || { cat "$out/$mode.$side.log"; exit 1; }
      ir=$(total_ir "$out/$mode.$side.out")
      # the frames this side ran while counted: "server frames N" or "client frames N (a + b)"
      word=client
      [ "$side" = server ] && word=server
      frames=$(grep -o "$word frames [0-9]*" "$out/$mode.$side.log" | awk '{print $3}')
      [ -z "$base" ] && base=$ir
      awk -v s="$side" -v m="$mode" -v ir="$ir" -v f="$frames" -v b="$base" 'BEGIN {
        printf "%-7s %-17s %12d instructions, %8.0f per frame (%d frames), %.3f x cpp_tick\n", s, m, ir, ir / f, f, ir / b }'
    done
  done
  # The comparison means something only if every mode played the same match.
  if [ "$(grep -ho "server hash [0-9a-f]*" "$out"/*.log | sort -u | wc -l)" -ne 1 ]; then
    echo "the modes played different matches:" >&2
    grep -H "counted" "$out"/*.log >&2
    exit 1
  fi
  echo "match: $(grep -o "counted.*" "$out/c_poll.clients.log")"
  exit 0
fi

probe="$1"
ms="${2:-10000}"
telemetry=("${@:3:2}") # telemetry frames and trace records; empty: the probe's defaults
for side in client server; do
  valgrind --tool=callgrind --callgrind-out-file="$out/$side.out" \
    --toggle-collect="retcon::${side}_session::tick(*" "$probe" "$ms" "${telemetry[@]}" >"$out/$side.log" 2>&1
  ir=$(total_ir "$out/$side.out")
  echo "$side: $ir instructions in ${side}_session::tick (match: $(grep -o "server frames.*" "$out/$side.log"))"
done
