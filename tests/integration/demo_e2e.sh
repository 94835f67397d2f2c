#!/usr/bin/env bash
# End to end over real ENet on loopback: demo_server + 3 headless bot clients. One client joins
# late; another is killed mid-match and restarted. Every client that sees the match end must
# exit 0 with "desyncs: 0", its confirmed-frame hashes must equal the server's (as recorded in
# the replay), the replay must verify, and `retcon check` must pass on it.
set -euo pipefail
server_bin=$1 client_bin=$2 retcon_bin=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir"
source "$(dirname "$0")/lib.sh"

# 5 slots: a killed client's slot stays taken until the server times it out. Port 0: the server
# takes a free port and prints it, so parallel runs never collide.
"$server_bin" --port 0 --players 5 --duration 9 --record "$dir/match.rcr" >"$dir/server.log" 2>&1 &
server=$!
pids+=("$server")
port=$(server_port "$dir/server.log") || exit 1
client() { # name seed (exec: the background job's PID is the client itself)
  exec "$client_bin" --connect "127.0.0.1:$port" --bot --headless --name "$1" --seed "$2" \
    --hash-log "$dir/$1.hashes" >"$dir/$1.log" 2>&1
}
client alice 1 & a=$!
client bob 2 & b=$!
client carol 3 & c=$!
pids+=("$a" "$b" "$c")
sleep 2
client dave 4 & d=$!            # late join
pids+=("$d")
sleep 1.5
kill -9 "$b"; wait "$b" 2>/dev/null || true   # crash: no goodbye
sleep 0.5
client bob2 5 & b2=$!           # restart: a new process takes a free slot
pids+=("$b2")
for p in "$server" "$a" "$c" "$d" "$b2"; do wait "$p" || fail "process $p exited with $?"; done

grep -q "match over" "$dir/server.log" || fail "server did not finish the match"
for n in alice carol dave bob2; do
  grep -q "the server ended the match" "$dir/$n.log" || fail "$n did not see the match end"
  grep -q "^desyncs: 0$" "$dir/$n.log" || fail "$n reported desyncs"
  "$client_bin" --replay "$dir/match.rcr" --check-hash-log "$dir/$n.hashes" >"$dir/$n.check" || fail "$n hashes differ: $(cat "$dir/$n.check")"
  cat "$dir/$n.check"
done
joins=$(grep -c "player_joined" "$dir/server.log")
[ "$joins" -eq 5 ] || fail "expected 5 joins (4 + restart), saw $joins"
"$client_bin" --replay "$dir/match.rcr" --headless | tee "$dir/replay.out" | grep -q "replay verified" || fail "replay does not verify"
"$retcon_bin" check "$dir/match.rcr" || fail "retcon check failed"
echo "PASS: 4 clients + restart over ENet, hashes equal, replay verified"
