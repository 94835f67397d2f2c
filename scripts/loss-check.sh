#!/usr/bin/env bash
# Loss check: N seeded matches of demo_server + bot clients over real ENet on loopback, every
# client's traffic through retcon-relay at the given one-way delay, jitter and loss (each
# direction). Counts the connections lost (a client's "disconnected" line, the server's
# "disconnected" events) and prints one line per match and a total; exits 1 if any was lost.
#   scripts/loss-check.sh [--runs 20] [--seconds 60] [--bots 4] [--delay 40] [--jitter 15]
#                         [--loss 0.15] [--seed 1] [--parallel 2]
# Match k uses relay seed SEED+k and bot seeds SEED+k*10+i. Runs the programs of
# $RETCON_SOAK_BUILD (build/release by default, built when missing, as scripts/soak.sh); logs
# stay in $build/loss-run/<k>/.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=20 seconds=60 bots=4 delay=40 jitter=15 loss=0.15 seed=1 parallel=2
while [ $# -gt 0 ]; do
  case "$1" in
  --runs) runs=$2 ;;
  --seconds) seconds=$2 ;;
  --bots) bots=$2 ;;
  --delay) delay=$2 ;;
  --jitter) jitter=$2 ;;
  --loss) loss=$2 ;;
  --seed) seed=$2 ;;
  --parallel) parallel=$2 ;;
  *) echo "loss-check: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
build="${RETCON_SOAK_BUILD:-build/release}"
source scripts/release-programs.sh
release_programs demo_server=demo_server/demo_server demo_client=demo_client/demo_client \
  retcon_relay=tools/retcon-relay
root="$build/loss-run"
rm -rf "$root" && mkdir -p "$root"

# One match in $root/$1; its processes end by themselves (--duration), and a stuck one is killed.
match() {
  local k=$1 dir="$root/$1"
  mkdir -p "$dir"
  (
    source tests/integration/lib.sh # server_port, fail; kills what is in $pids on exit
    "$build/demo_server/demo_server" --port 0 --players "$bots" --duration "$seconds" --quiet \
      --max-peers-per-address 16 --hellos-per-second 0 >"$dir/server.log" 2>&1 &
    server=$!
    pids+=("$server")
    port=$(server_port "$dir/server.log") || exit 1
    "$build/tools/retcon-relay" --listen 0 --server "127.0.0.1:$port" --delay "$delay" --jitter "$jitter" \
      --loss "$loss" --seed $((seed + k)) --duration $((seconds + 30)) >"$dir/relay.log" 2>&1 &
    relay=$!
    pids+=("$relay")
    relay_port=$(server_port "$dir/relay.log" retcon-relay) || exit 1
    clients=()
    for i in $(seq 1 "$bots"); do
      "$build/demo_client/demo_client" --connect "127.0.0.1:$relay_port" --bot --headless --name "bot$i" \
        --seed $((seed + k * 10 + i)) >"$dir/bot$i.log" 2>&1 &
      clients+=($!)
      pids+=($!)
    done
    # Give-up bound: a match that outlives its duration by a minute is stuck.
    wait_for $((seconds + 60)) gone "$server" || echo "server did not exit" >>"$dir/server.log"
    for p in "${clients[@]}"; do wait_for 20 gone "$p" || true; done
    kill "$relay" 2>/dev/null || true
  ) || true
}

# A lost connection: the server's "disconnected" event for a player, or a client's own report.
lost() { grep -h -E "disconnected|silent for|connection closed" "$1"/*.log | grep -v -E "match_ended|match ended" || true; }

total=0
k=0
while [ "$k" -lt "$runs" ]; do
  batch=()
  for _ in $(seq 1 "$parallel"); do
    [ "$k" -lt "$runs" ] || break
    match "$k" &
    batch+=("$k:$!")
    k=$((k + 1))
  done
  for entry in "${batch[@]}"; do
    wait "${entry#*:}" || true
    m=${entry%%:*}
    lines=$(lost "$root/$m")
    n=$(printf '%s' "$lines" | grep -c . || true)
    total=$((total + n))
    printf 'match %d (relay seed %d): %d disconnect lines\n' "$m" $((seed + m)) "$n"
    [ -z "$lines" ] || printf '%s\n' "$lines" | sed 's/^/  /'
  done
done
echo "== loss-check: $runs matches x ${seconds} s, $bots bots, delay ${delay} ms + jitter 0..${jitter} ms one-way, loss $loss: $total disconnect lines =="
[ "$total" -eq 0 ]
