#!/usr/bin/env bash
# Draining a match host with real processes over ENet on loopback (docs/hosting.md, "Drain"):
# demo_server runs 2 open matches of 2 players with three bots in them.
#  1. SIGTERM with --drain-grace 3: a client that comes after it is refused with a message saying
#     the server is shutting down; the running matches end when the grace is over; the server
#     exits 0 soon after; each match's replay passes `retcon check`; the log has 2 "match over"
#     lines and 2 JSON result lines with end_reason "drain"; every bot sees the match end.
#  2. --drain-grace 60 and SIGTERM twice: the second one ends every match at once ("drain
#     forced"), well before the grace, and the replays are still complete.
#   host_drain.sh DEMO_SERVER DEMO_CLIENT RETCON SCRATCH_DIR
# Time limits below are give-up bounds only.
set -euo pipefail
server_bin=$1 client_bin=$2 retcon_bin=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir"

source "$(dirname "$0")/lib.sh"

# start_host SCENARIO GRACE: a server with 2 open matches and 3 bots playing in them. Sets
# $d (the scenario's directory), $server, $port and $bots.
start_host() {
  d=$dir/$1
  mkdir -p "$d" # not its replays: the server makes them (docs/hosting.md, "Replay directory")
  "$server_bin" --port 0 --matches 2 --players 2 --replay-dir "$d/replays" --drain-grace "$2" --quiet \
    >"$d/server.log" 2>"$d/server.err" &
  server=$!; pids+=("$server")
  port=$(server_port "$d/server.log" "$1") || exit 1
  # Open matches open one after another (their keyframes staggered): a third player needs both.
  wait_for 10 grep -q "match=open-2 opened" "$d/server.log" || fail "$1: the second match never opened"
  bots=()
  for n in 1 2 3; do
    "$client_bin" --connect "127.0.0.1:$port" --bot --headless --name "bot$n" --seed "$n" \
      >"$d/bot$n.log" 2>"$d/bot$n.err" &
    bots+=("$!"); pids+=("$!")
  done
  for n in 1 2 3; do wait_for 15 playing "$d/bot$n.log" || fail "$1: bot$n never played"; done
  grep -q "match=open-1 .*player_joined" "$d/server.log" || fail "$1: nobody joined open-1"
  grep -q "match=open-2 .*player_joined" "$d/server.log" || fail "$1: nobody joined open-2"
  sleep 1 # a second of play: each match has frames to record
}

# check_ended SCENARIO REASON: the server's log, the results and the replays after the drain.
check_ended() {
  local reason=$2
  [ "$(grep -c "demo_server: match over" "$d/server.log")" -eq 2 ] || fail "$1: not 2 'match over' lines"
  [ "$(grep -c '^{"event":"match_result"' "$d/server.log")" -eq 2 ] || fail "$1: not 2 JSON result lines"
  [ "$(grep '^{"event":"match_result"' "$d/server.log" | grep -c "\"end_reason\":\"$reason\"")" -eq 2 ] ||
    fail "$1: the results do not both say end_reason \"$reason\": $(grep match_result "$d/server.log")"
  for id in open-1 open-2; do
    grep -q "^{\"event\":\"match_result\",\"match_id\":\"$id\"" "$d/server.log" || fail "$1: no result for $id"
    [ -s "$d/replays/$id.rcr" ] || fail "$1: no replay of $id"
    "$retcon_bin" check "$d/replays/$id.rcr" >"$d/check-$id.log" 2>&1 ||
      fail "$1: retcon check $id.rcr failed: $(cat "$d/check-$id.log")"
    grep -q "ok (" "$d/check-$id.log" || fail "$1: retcon check did not say ok: $(cat "$d/check-$id.log")"
  done
  for n in 1 2 3; do
    wait "${bots[$((n - 1))]}" || fail "$1: bot$n exited with $?"
    grep -q "the server ended the match" "$d/bot$n.log" || fail "$1: bot$n did not see the match end"
  done
}

# 1. SIGTERM: drain within a 3 s grace.
start_host graceful 3
kill -TERM "$server"
wait_for 5 grep -q "draining: admitting nobody new" "$d/server.log" || fail "graceful: SIGTERM did not start a drain"
drain_started=$(date +%s.%N)
status=0
"$client_bin" --connect "127.0.0.1:$port" --bot --headless --name late --seed 9 >"$d/late.log" 2>"$d/late.err" ||
  status=$?
[ "$status" -eq 3 ] || fail "graceful: the late client exited with $status, expected 3 (refused)"
grep -q "rejected: the server is shutting down" "$d/late.log" ||
  fail "graceful: the late client was not told the server is shutting down"
grep -q "slot: none (never joined)" "$d/late.log" || fail "graceful: the late client got a slot"
# The matches go on for the grace (a lower bound: load only makes it longer); the server exits
# within grace + a few seconds.
wait_for 15 gone "$server" || fail "graceful: the server still runs 15 s after the drain began"
took=$(awk -v a="$drain_started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
status=0; wait "$server" || status=$?
[ "$status" -eq 0 ] || fail "graceful: the server exited with $status"
awk -v t="$took" 'BEGIN { exit !(t >= 2.5) }' || fail "graceful: the server stopped ${took} s into the 3 s grace"
check_ended graceful drain
grep -q "stopped: 2 matches ended" "$d/server.log" || fail "graceful: the server did not report 2 matches ended"

# 2. Two SIGTERMs: a forced drain ends every match at once despite a 60 s grace.
start_host forced 60
kill -TERM "$server"
wait_for 5 grep -q "draining: admitting nobody new" "$d/server.log" || fail "forced: SIGTERM did not start a drain"
drain_started=$SECONDS
kill -TERM "$server"
wait_for 15 gone "$server" || fail "forced: the server still runs 15 s after the second SIGTERM"
status=0; wait "$server" || status=$?
[ "$status" -eq 0 ] || fail "forced: the server exited with $status"
grep -q "drain forced: ending every match now" "$d/server.log" || fail "forced: no 'drain forced' line"
took=$((SECONDS - drain_started))
[ "$took" -lt 30 ] || fail "forced: the server took ${took} s to stop"
check_ended forced "drain forced"
echo "PASS: a drain refuses newcomers, ends both matches after the grace (or at once when forced) with complete replays"
