#!/usr/bin/env bash
# Desync bisection end to end over real ENet on loopback (docs/net.md, "Desync forensics"):
# demo_server + 2 headless bots, one with --debug-desync, whose "movement" system misbehaves at
# one frame. The server must name that system, the entity and the field; the client's summary
# must show the verdict; the stage images must be written and `retcon diff` must find the field.
set -euo pipefail
server_bin=$1 client_bin=$2 retcon_bin=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir/forensics"
source "$(dirname "$0")/lib.sh"

"$server_bin" --port 0 --players 3 --duration 8 --forensics "$dir/forensics" --quiet >"$dir/server.log" 2>&1 &
server=$!
pids+=("$server")
port=$(server_port "$dir/server.log") || exit 1
client() { # name seed [options...] (exec: the background job's PID is the client itself)
  local name=$1 seed=$2; shift 2
  exec "$client_bin" --connect "127.0.0.1:$port" --bot --headless --name "$name" --seed "$seed" "$@" \
    >"$dir/$name.log" 2>&1
}
client honest 1 & a=$!
client faulty 2 --debug-desync 240 & b=$!
pids+=("$a" "$b")
for p in "$server" "$a" "$b"; do wait "$p" || fail "process $p exited with $?"; done

grep -q "match over" "$dir/server.log" || fail "server did not finish the match"
grep -q 'desync at frame 240: first diverging system "movement" (stage 2 of 6); position\.[xy] of entity ' \
  "$dir/server.log" || fail "the server did not name the system, entity and field"
grep -q '^desync verdict: frame 240, system "movement"$' "$dir/faulty.log" || fail "the client did not show the verdict"
grep -q "^desyncs: 0$" "$dir/honest.log" || fail "the honest client desynced"
server_stage=$(find "$dir/forensics" -name '*-stage2-server.rcs' | head -n 1)
client_stage=${server_stage%-server.rcs}-client.rcs
[ -n "$server_stage" ] && [ -f "$client_stage" ] || fail "no stage images in $(ls "$dir/forensics")"
ls "$dir/forensics"/*.txt >/dev/null || fail "no forensic record"
set +e
"$retcon_bin" diff "$server_stage" "$client_stage" >"$dir/diff.out" 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "retcon diff exited $rc: $(cat "$dir/diff.out")"
grep -q "position" "$dir/diff.out" || fail "retcon diff did not name the pool: $(cat "$dir/diff.out")"
grep 'first diverging system' "$dir/server.log" | head -n 1
echo "PASS: the server named the faulty client's system \"movement\", the entity and the field"
