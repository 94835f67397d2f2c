#!/usr/bin/env bash
# The one-command demo: installs what is missing, builds, plays a match on loopback between
# demo_server and two bot clients, prints a summary, and verifies the recorded replay.
#   RETCON_DEMO_SECONDS=20  match length      RETCON_DEMO_PORT=7777  UDP port
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${RETCON_DEMO_SECONDS:-20}"
port="${RETCON_DEMO_PORT:-7777}"

scripts/setup.sh
cmake --preset release >/dev/null
# retcon-token too: the README's hosting section starts with it; retcon-relay for its bad link.
cmake --build --preset release --target demo_server demo_client retcon_cli retcon_token retcon_relay

bin=build/release
run=build/release/demo-run
mkdir -p "$run"
rm -f "$run"/*.log "$run/match.rcr"

echo "demo: a ${seconds}-second match on 127.0.0.1:${port}: demo_server + 2 bot clients"
"$bin/demo_server/demo_server" --port "$port" --players 2 --duration "$seconds" --record "$run/match.rcr" \
  >"$run/server.log" 2>&1 &
server=$!
sleep 0.5
pids=()
for name in alice bob; do
  "$bin/demo_client/demo_client" --connect "127.0.0.1:$port" --bot --headless --name "$name" \
    --seed "${#pids[@]}" --hash-log "$run/$name.hashes" >"$run/$name.log" 2>&1 &
  pids+=($!)
done
status=0
wait "$server" || status=1
for p in "${pids[@]}"; do wait "$p" || status=1; done

frames=$(grep -o 'match over after [0-9]*' "$run/server.log" | grep -o '[0-9]*$' || echo 0)
sum() { awk -v pat="$1" '$0 ~ pat { s += $NF } END { print s + 0 }' "$run"/alice.log "$run"/bob.log; }
echo
echo "== summary =="
echo "frames played: ${frames}"
echo "rollbacks: $(sum '^  rollbacks:')"
echo "frames re-simulated: $(sum '^  frames re-simulated:')"
grep -h "bandwidth" "$run"/alice.log "$run"/bob.log | sed 's/^ */client bandwidth: /; s/rtt: [0-9.]* ms, bandwidth: //'
echo "desyncs: $(sum '^desyncs:')"
echo
echo "== replay =="
"$bin/tools/retcon" check "$run/match.rcr" || status=1
"$bin/demo_client/demo_client" --replay "$run/match.rcr" --headless || status=1
for name in alice bob; do
  "$bin/demo_client/demo_client" --replay "$run/match.rcr" --check-hash-log "$run/$name.hashes" || status=1
done
echo
echo "Play yourself: in one terminal  $bin/demo_server/demo_server --players 2"
echo "               in two others    $bin/demo_client/demo_client --name you   (a/d turn, w thrust, space fire, q quit)"
echo "Watch the replay:               $bin/demo_client/demo_client --replay $run/match.rcr"
if [ "$status" -ne 0 ]; then echo "demo: something failed (logs in $run)"; fi
exit "$status"
