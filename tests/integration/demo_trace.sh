#!/usr/bin/env bash
# Traces of a real match over ENet on loopback: demo_server --trace and two headless bots, one
# with --trace, play a short match; both trace files must pass the strict checker
# (retcon_trace_check, written from the Trace Event Format's rules) with tick slices in them
# (docs/net.md, "Reading a trace").
set -euo pipefail
server_bin=$1 client_bin=$2 check_bin=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir"
source "$(dirname "$0")/lib.sh"

"$server_bin" --port 0 --players 2 --duration 6 --trace "$dir/server.json" >"$dir/server.log" 2>&1 &
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
"$check_bin" "$dir/server.json" "$dir/alice.json" | tee "$dir/check.out" || fail "a trace fails the checker"
for f in server alice; do
  grep -q "^$dir/$f.json: ok, .* [0-9]* tick" "$dir/check.out" || fail "$f's trace has no tick slices"
done
echo "PASS: the server's and a client's traces of a match over ENet pass the strict checker"
echo "bytes: server $(stat -c %s "$dir/server.json"), client $(stat -c %s "$dir/alice.json") for 6 s"
