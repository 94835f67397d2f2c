#!/usr/bin/env bash
# Presence check: N seeded two-player matches of demo_server + bot clients over real ENet on
# loopback, through retcon-relay (60 ms + jitter 0..20 ms one-way, 5% loss by default), each
# recorded. A player whose snapshot loads late starts behind the server; it must still join
# the game (docs/net.md, "Spectators, late join, reconnect"). Reads each replay's present flags
# at keyframes 120 and 240 (`retcon dump`: the bots join near frame 30) and exits 1 if a slot
# is not present at frame 240. Timing on a loaded machine varies: the relay seed fixes the
# impairments, not when the snapshot's lost chunk is resent.
#   scripts/presence-check.sh [--runs 12] [--delay 60] [--jitter 20] [--loss 0.05] [--seed 1]
# Match k uses relay seed SEED+k. Runs the programs of $RETCON_SOAK_BUILD (build/release by
# default, built when missing, as scripts/loss-check.sh); logs and replays stay in
# $build/presence-run/<k>/.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=12 delay=60 jitter=20 loss=0.05 seed=1
while [ $# -gt 0 ]; do
  case "$1" in
  --runs) runs=$2 ;;
  --delay) delay=$2 ;;
  --jitter) jitter=$2 ;;
  --loss) loss=$2 ;;
  --seed) seed=$2 ;;
  *) echo "presence-check: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
build="${RETCON_SOAK_BUILD:-build/release}"
source scripts/release-programs.sh
release_programs demo_server=demo_server/demo_server demo_client=demo_client/demo_client \
  retcon_relay=tools/retcon-relay retcon_cli=tools/retcon
root="$build/presence-run"
rm -rf "$root" && mkdir -p "$root"

# One recorded 6-second match in $root/$1; its processes end by themselves (--duration).
match() {
  local k=$1 dir="$root/$1"
  mkdir -p "$dir"
  (
    source tests/integration/lib.sh # server_port, fail; kills what is in $pids on exit
    "$build/demo_server/demo_server" --port 0 --players 2 --duration 6 --quiet --record "$dir/match.rcr" \
      >"$dir/server.log" 2>&1 &
    server=$!
    pids+=("$server")
    port=$(server_port "$dir/server.log") || exit 1
    "$build/tools/retcon-relay" --listen 0 --server "127.0.0.1:$port" --delay "$delay" --jitter "$jitter" \
      --loss "$loss" --seed $((seed + k)) --duration 40 >"$dir/relay.log" 2>&1 &
    pids+=($!)
    relay_port=$(server_port "$dir/relay.log" retcon-relay) || exit 1
    for i in 1 2; do
      "$build/demo_client/demo_client" --connect "127.0.0.1:$relay_port" --bot --headless --name "bot$i" \
        --seed $((seed + k * 10 + i)) >"$dir/bot$i.log" 2>&1 &
      pids+=($!)
    done
    wait_for 60 gone "$server" || echo "server did not exit" >>"$dir/server.log"
  ) || true
}

# present REPLAY FRAME: the two slots' present flags at the keyframe at or before FRAME ("11": both).
present() {
  "$build/tools/retcon" dump --frame "$2" "$1" 2>/dev/null |
    python3 -c 'import json, sys; print("".join(map(str, json.load(sys.stdin)["resources"]["match_state"]["present"][:2])))' ||
    echo "??"
}

absent=0
for k in $(seq 0 $((runs - 1))); do
  match "$k"
  early=$(present "$root/$k/match.rcr" 120)
  late=$(present "$root/$k/match.rcr" 240)
  [ "$late" = 11 ] || absent=$((absent + 1))
  printf 'match %d (relay seed %d): present at frame 120: %s, at frame 240: %s\n' "$k" $((seed + k)) "$early" "$late"
done
echo "== presence-check: $runs matches, delay ${delay} ms + jitter 0..${jitter} ms one-way, loss $loss: $absent with a slot not present at frame 240 =="
[ "$absent" -eq 0 ]
