#!/usr/bin/env bash
# Traces of a real match over ENet on loopback: demo_server --trace and two headless bots, one
# with --trace, play a short match, and demo_client --replay --headless --trace re-simulates its
# recording; the three trace files must pass the strict checker
# (retcon_trace_check, written from the Trace Event Format's rules) with tick slices in them
# (docs/net.md, "Reading a trace").
set -euo pipefail
server_bin=$1 client_bin=$2 check_bin=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir"
source "$(dirname "$0")/lib.sh"

"$server_bin" --port 0 --players 2 --duration 6 --trace "$dir/server.json" --record "$dir/match.rcr" >"$dir/server.log" 2>&1 &
server=$!
pids+=("$server")
port=$(server_port "$dir/server.log") || exit 1
"$client_bin" --connect "127.0.0.1:$port" --bot --headless --name alice --seed 1 --trace "$dir/alice.json" \
  >"$dir/alice.log" 2>&1 &
a=$!
"$client_bin" --connect "127.0.0.1:$port" --bot --headless --name bob --seed 2 >"$dir/bob.log" 2>&1 &
b=$!
pids+=("$a" "$b")
for p in "$server" "$a" "$b"; do wait "$p" || fail "process $p exited with $?"; done

grep -q "trace written to $dir/server.json" "$dir/server.log" || fail "the server wrote no trace"
grep -q "^  trace: $dir/alice.json" "$dir/alice.log" || fail "alice wrote no trace"
[ ! -e "$dir/bob.json" ] || fail "bob wrote a trace it was not asked for"
"$client_bin" --replay "$dir/match.rcr" --headless --trace "$dir/replay.json" >"$dir/replay.log" 2>&1 ||
  fail "the replay's trace was not written"
grep -q "trace: $dir/replay.json" "$dir/replay.log" || fail "the replay run did not say where its trace is"
"$check_bin" "$dir/server.json" "$dir/alice.json" "$dir/replay.json" | tee "$dir/check.out" || fail "a trace fails the checker"
for f in server alice; do
  grep -q "^$dir/$f.json: ok, .* [0-9]* tick" "$dir/check.out" || fail "$f's trace has no tick slices"
done
# One "frame" slice per frame the replay re-simulated.
resimulated=$(sed -n 's/^replay .*: \([0-9]*\) frames re-simulated.*/\1/p' "$dir/replay.log")
grep -q "^$dir/replay.json: ok, [0-9]* events, $resimulated frame$" "$dir/check.out" ||
  fail "the replay's trace does not have one frame slice per frame re-simulated ($resimulated)"
echo "PASS: the server's, a client's and the replay's traces of a match over ENet pass the strict checker"
echo "bytes: server $(stat -c %s "$dir/server.json"), client $(stat -c %s "$dir/alice.json") for 6 s"
