#!/usr/bin/env bash
# Soak: demo_server + 4 bot clients over real ENet on loopback, every client's traffic through
# retcon-relay (seeded impairments: 40 ms one-way ± 10 ms jitter — about 80 ms RTT ± 20 ms —, 5%
# loss, 1% duplication, 2% reordering, each direction). Reports desyncs (must be 0),
# rollbacks, bandwidth, and the processes' resident memory at start and end (must stay flat).
#   scripts/soak.sh [SECONDS=120]        (RETCON_SOAK_BUILD=build/release by default)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-120}"
build="${RETCON_SOAK_BUILD:-build/release}"
if [ ! -x "$build/demo_server/demo_server" ] || [ ! -x "$build/tools/retcon-relay" ]; then
  scripts/setup.sh
  cmake --preset release >/dev/null
  cmake --build --preset release --target demo_server demo_client retcon_relay retcon_cli
  build=build/release
fi
run="$build/soak-run"
rm -rf "$run" && mkdir -p "$run"
dir=$run
source tests/integration/lib.sh # server_port, wait_for, fail; kills what is in $pids on exit
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# Port 0 for both: each takes a free port, so parallel runs never collide.
"$build/demo_server/demo_server" --port 0 --players 4 --duration "$seconds" --record "$run/match.rcr" \
  >"$run/server.log" 2>&1 &
server=$!
pids+=("$server")
port=$(server_port "$run/server.log") || exit 1
"$build/tools/retcon-relay" --listen 0 --server "127.0.0.1:$port" --delay 40 --jitter 10 --loss 0.05 \
  --duplicate 0.01 --reorder 0.02 --seed 7 --duration $((seconds + 10)) >"$run/relay.log" 2>&1 &
relay=$!
pids+=("$relay")
relay_port=$(server_port "$run/relay.log" retcon-relay) || exit 1
clients=()
for i in 1 2 3 4; do
  "$build/demo_client/demo_client" --connect "127.0.0.1:$relay_port" --bot --headless --name "bot$i" \
    --seed "$i" --hash-log "$run/bot$i.hashes" >"$run/bot$i.log" 2>&1 &
  clients+=($!)
  pids+=($!)
done
sleep 5
start_rss=()
for p in "$server" "${clients[@]}"; do start_rss+=("$(rss_kb "$p")"); done
sleep $((seconds > 8 ? seconds - 7 : 1))
end_rss=()
for p in "$server" "${clients[@]}"; do end_rss+=("$(rss_kb "$p")"); done

status=0
wait "$server" || status=1
for p in "${clients[@]}"; do wait "$p" || status=1; done
kill "$relay" 2>/dev/null || true
wait "$relay" 2>/dev/null || true

sum() { awk -v pat="$1" '$0 ~ pat { s += $NF } END { print s + 0 }' "$run"/bot*.log; }
desyncs=$(sum '^desyncs:')
echo "== soak: ${seconds} s, 4 bots through retcon-relay (80 ms RTT ± 20 ms, 5% loss, 1% dup, 2% reorder) =="
grep -h "match over" "$run/server.log" || status=1
echo "desyncs: $desyncs"
echo "rollbacks: $(sum '^  rollbacks:'), frames re-simulated: $(sum '^  frames re-simulated:'), stalls: $(sum '^  stalls:')"
grep -h "bandwidth" "$run"/bot*.log | sed 's/^ */client /'
names=(server bot1 bot2 bot3 bot4)
for i in "${!names[@]}"; do
  s=${start_rss[$i]} e=${end_rss[$i]}
  echo "memory ${names[$i]}: ${s} kB at start, ${e} kB at end"
  # Flat: at most 20% + 8 MB growth between the two samples.
  if [ "$s" -gt 0 ] && [ "$e" -gt $((s + s / 5 + 8192)) ]; then echo "  grew too much"; status=1; fi
done
cat "$run/relay.log" | tail -n 1
[ "$desyncs" -eq 0 ] || status=1
for i in 1 2 3 4; do
  "$build/demo_client/demo_client" --replay "$run/match.rcr" --check-hash-log "$run/bot$i.hashes" || status=1
done
"$build/demo_client/demo_client" --replay "$run/match.rcr" --headless || status=1
[ "$status" -eq 0 ] && echo "soak: PASS" || echo "soak: FAIL (logs in $run)"
exit "$status"
