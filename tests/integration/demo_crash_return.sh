#!/usr/bin/env bash
# A crashed player comes straight back, over real ENet on loopback: demo_server with 2 slots;
# client ada keeps its reconnect token in a --token-file; once she plays she is killed with
# SIGKILL (no goodbye) and restarted at once with the same file, long before the server could
# time the dead connection out (5 s), and a new player bob joins right after. The server must
# drop the stale connection ("replaced by a reconnection with its token") and give ada her own
# slot back, bob must get the other slot (not "the match is full"), nobody desyncs, and every
# process exits 0 when the match ends. Also: a token file with bad content stops the client
# (exit 2, naming the file), a token the server does not know (a stale file after a restart) is
# refused with a clear message and the client joins as a new player instead (here refused as full:
# exit 3, the file left as it was), and a spectator ignores its token file.
#   demo_crash_return.sh DEMO_SERVER DEMO_CLIENT SCRATCH_DIR
# Time limits below are give-up bounds only; the match itself lasts 8 s.
set -euo pipefail
server_bin=$1 client_bin=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"

source "$(dirname "$0")/lib.sh"
# has_token FILE PID: FILE was written, or the process is gone (then waiting longer is pointless).
has_token() { test -s "$1" || ! kill -0 "$2" 2>/dev/null; }

# Port 0: the server takes a free port and prints it, so parallel runs never collide.
"$server_bin" --port 0 --players 2 --duration 8 --quiet >"$dir/server.log" 2>&1 &
server=$!; pids+=("$server")
port=$(server_port "$dir/server.log") || exit 1

client() { # name seed token-file log [extra...] (exec: the background job's PID is the client itself)
  local name=$1 seed=$2 token=$3 log=$4; shift 4
  exec "$client_bin" --connect "127.0.0.1:$port" --bot --headless --name "$name" --seed "$seed" \
    --token-file "$token" "$@" >"$log" 2>"${log%.log}.err"
}

# 1. A bad token file stops the client before it connects: exit 2, the file named on stderr.
echo "not a token" >"$dir/bad.token"
status=0
"$client_bin" --connect "127.0.0.1:$port" --headless --token-file "$dir/bad.token" >"$dir/bad.out" 2>"$dir/bad.err" ||
  status=$?
[ "$status" -eq 2 ] || fail "a bad token file: exit $status, expected 2"
grep -q "$dir/bad.token" "$dir/bad.err" || fail "the bad token file is not named: $(cat "$dir/bad.err")"

# 2. ada joins and keeps her token.
client ada 1 "$dir/a.token" "$dir/ada1.log" & a=$!; pids+=("$a")
wait_for 10 has_token "$dir/a.token" "$a" || true
[ -s "$dir/a.token" ] || fail "ada never wrote her token file"
first_slot=$(slot_of "$dir/ada1.log")
[ -n "$first_slot" ] || fail "ada's log does not say which slot she plays"
mode=$(stat -c %a "$dir/a.token")
[ "$mode" = 600 ] || fail "the token file has mode $mode, expected 600 (it is a secret)"
grep -Eqx '[0-9a-f]{32}' "$dir/a.token" || fail "the token file does not hold 32 hex digits: $(cat "$dir/a.token")"

# 3. Crash, and come straight back with the same file; a new player right after.
kill -9 "$a"; wait "$a" 2>/dev/null || true
client ada 1 "$dir/a.token" "$dir/ada2.log" & a2=$!; pids+=("$a2")
client bob 2 "$dir/b.token" "$dir/bob.log" & b=$!; pids+=("$b")

# A spectator neither reads nor writes its token file (this one would stop a player).
cp "$dir/bad.token" "$dir/bad.before"
"$client_bin" --connect "127.0.0.1:$port" --headless --spectate --name watcher --token-file "$dir/bad.token" \
  --duration 1 >"$dir/watcher.log" 2>"$dir/watcher.err" & w=$!; pids+=("$w")

# 4. A token the server never issued is refused, clearly, once, and the client joins as a new
# player instead (both slots are taken: refused as full); the file stays as it was.
wait_for 10 has_token "$dir/b.token" "$b" || true
[ -s "$dir/b.token" ] || fail "bob never got a slot"
echo 0123456789abcdef0123456789abcdef >"$dir/stranger.token"
cp "$dir/stranger.token" "$dir/stranger.before"
status=0
"$client_bin" --connect "127.0.0.1:$port" --bot --headless --name stranger --token-file "$dir/stranger.token" \
  >"$dir/stranger.log" 2>"$dir/stranger.err" || status=$?
[ "$status" -eq 3 ] || fail "an unknown token, then a full match: exit $status, expected 3"
grep -q "reconnect token unknown" "$dir/stranger.log" || fail "the stranger's log does not say why it was refused"
grep -q "refused the reconnect token in $dir/stranger.token.*joining as a new player" "$dir/stranger.err" ||
  fail "the stranger is not told its token was refused: $(cat "$dir/stranger.err")"
grep -q "joining as a new player" "$dir/stranger.log" || fail "the stranger's output does not say it joins anew"
grep -q "is full" "$dir/stranger.log" || fail "the stranger did not try again as a new player"
cmp -s "$dir/stranger.token" "$dir/stranger.before" || fail "a refused token file was changed"

wait "$w" || fail "the spectator exited with $? (did it read its token file?)"
grep -q "watching as a spectator" "$dir/watcher.log" || fail "the spectator did not watch"
cmp -s "$dir/bad.token" "$dir/bad.before" || fail "a spectator changed its token file"
for p in "$server" "$a2" "$b"; do wait "$p" || fail "process $p exited with $?"; done

grep -q "replaced by a reconnection with its token" "$dir/server.log" ||
  fail "the server did not replace ada's stale connection"
grep -q "match over.*; desyncs: 0;" "$dir/server.log" || fail "the server reports desyncs"
second_slot=$(slot_of "$dir/ada2.log")
[ "$second_slot" = "$first_slot" ] || fail "ada played slot $first_slot, came back in slot '${second_slot}'"
grep -qx "  slot: $first_slot" "$dir/ada2.log" || fail "ada's summary does not show slot $first_slot"
bob_slot=$(slot_of "$dir/bob.log")
if [ -z "$bob_slot" ] || [ "$bob_slot" = "$first_slot" ]; then fail "bob got slot '${bob_slot}', ada has $first_slot"; fi
for n in ada2 bob; do
  grep -q "the server ended the match" "$dir/$n.log" || fail "$n did not see the match end"
  grep -qx "desyncs: 0" "$dir/$n.log" || fail "$n reported desyncs"
done
[ "$(stat -c %a "$dir/a.token")" = 600 ] || fail "the token file is not 0600 after the restart"
echo "PASS: ada crashed in slot $first_slot and came back to it at once; bob took slot $bob_slot"
