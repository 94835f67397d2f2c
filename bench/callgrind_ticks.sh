#!/usr/bin/env bash
# Instruction counts of client_session::tick and server_session::tick on a seeded match
# (bench/tick_probe.cpp) under callgrind: stable on a noisy shared machine, so two builds can be
# compared exactly (docs/benchmarks.md, "Session tick instructions").
#   bench/callgrind_ticks.sh <path to retcon_tick_probe> [virtual ms]
set -euo pipefail
probe="$1"
ms="${2:-10000}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for side in client server; do
  valgrind --tool=callgrind --callgrind-out-file="$out/$side.out" \
    --toggle-collect="retcon::${side}_session::tick(*" "$probe" "$ms" >"$out/$side.log" 2>&1
  # awk reads to the end (no early exit): callgrind_annotate would die of SIGPIPE, and pipefail
  # would end the script there.
  ir=$(callgrind_annotate "$out/$side.out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !done {gsub(",", "", $1); print $1; done = 1}')
  echo "$side: $ir instructions in ${side}_session::tick (match: $(grep -o "server frames.*" "$out/$side.log"))"
done
