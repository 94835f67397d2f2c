#!/usr/bin/env bash
# SIGTERM during a match on Agones, with real processes (docs/hosting.md, "Agones" and
# "Shutdown"): retcon-agones-standin plays the SDK sidecar (docs/agones-standin.md);
# demo_server finds it through AGONES_SDK_HTTP_PORT, goes Ready, a bot plays, the allocator
# (the stand-in's /test/allocate) places the match here; then SIGTERM:
#  - the server drains (--drain-grace 2), the match ends, the server gives its room back,
#    POSTs /shutdown and exits 0;
#  - SIGTERM already came, so it does not wait for the watch to show Shutdown (up to 30 s): it
#    is gone within 15 s of the signal (a correctness bound, not a speed threshold);
#  - the replay is complete (`retcon check`), the stand-in saw "shutdown" and holds the
#    GameServer Shutdown, its rooms counter back at 0.
#   agones_sigterm.sh DEMO_SERVER DEMO_CLIENT RETCON RETCON_AGONES_STANDIN SCRATCH_DIR
# Time limits below are give-up bounds only.
set -euo pipefail
server_bin=$1 client_bin=$2 retcon_bin=$3 standin_bin=$4 dir=$5
rm -rf "$dir" && mkdir -p "$dir/replays"

source "$(dirname "$0")/lib.sh"

# The sidecar, on a free port it writes to a file.
"$standin_bin" --port 0 --port-file "$dir/standin.port" >"$dir/standin.log" 2>"$dir/standin.err" &
standin=$!; pids+=("$standin")
wait_for 10 test -s "$dir/standin.port" || fail "the stand-in did not start"
sdk_port=$(cat "$dir/standin.port")
[ "${sdk_port:-0}" -gt 0 ] || fail "no port in the stand-in's port file"

# http METHOD PATH: the body of the stand-in's answer (bash's /dev/tcp: no HTTP client needed).
http() {
  local reply
  exec 3<>"/dev/tcp/127.0.0.1/$sdk_port" || return 1
  printf '%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}' \
    "$1" "$2" >&3
  reply=$(cat <&3)
  exec 3<&-
  printf '%s\n' "${reply#*$'\r\n\r\n'}"
}
state_has() { http GET /test/state | grep -q "$1"; } # state_has TEXT: the stand-in's /test/state says it

AGONES_SDK_HTTP_PORT=$sdk_port "$server_bin" --port 0 --replay-dir "$dir/replays" --drain-grace 2 --quiet \
  >"$dir/server.log" 2>"$dir/server.err" &
server=$!; pids+=("$server")
port=$(server_port "$dir/server.log") || exit 1
grep -q "orchestrator: agones" "$dir/server.log" || fail "AGONES_SDK_HTTP_PORT did not select the Agones orchestrator"
wait_for 15 state_has '"state":"Ready"' || fail "the stand-in never saw the server Ready: $(http GET /test/state)"
grep -q "agones: ready" "$dir/server.log" || fail "the server's log does not say it is ready"

"$client_bin" --connect "127.0.0.1:$port" --bot --headless --name bot --seed 1 >"$dir/bot.log" 2>"$dir/bot.err" &
bot=$!; pids+=("$bot")
wait_for 15 playing "$dir/bot.log" || fail "the bot never played"
allocated=$(http POST /test/allocate) || fail "POST /test/allocate failed"
[ "$allocated" = "{}" ] || fail "the allocation failed: $allocated"
wait_for 10 grep -q "agones: allocated" "$dir/server.log" || fail "the server never saw its allocation"
state_has '"state":"Allocated"' || fail "the stand-in does not hold the server Allocated"
state_has '"rooms":{"count":1,' || fail "the allocator did not count a room: $(http GET /test/state)"
sleep 1.5 # the match plays on, allocated

kill -TERM "$server"
term_at=$SECONDS
wait_for 5 grep -q "draining: admitting nobody new" "$dir/server.log" || fail "SIGTERM did not start a drain"
wait_for 15 gone "$server" || fail "the server still runs 15 s after SIGTERM (waiting for a Shutdown it need not wait for?)"
took=$((SECONDS - term_at))
status=0; wait "$server" || status=$?
[ "$status" -eq 0 ] || fail "the server exited with $status"
[ "$took" -le 15 ] || fail "the server took ${took} s to exit after SIGTERM"

# The match ended with a complete replay, its room given back.
grep -q '^{"event":"match_result","match_id":"open-1"' "$dir/server.log" || fail "no result line for open-1"
grep '^{"event":"match_result"' "$dir/server.log" | grep -q '"end_reason":"drain"' ||
  fail "the match did not end by the drain: $(grep match_result "$dir/server.log")"
[ -s "$dir/replays/open-1.rcr" ] || fail "no replay of open-1"
"$retcon_bin" check "$dir/replays/open-1.rcr" >"$dir/check.log" 2>&1 || fail "retcon check failed: $(cat "$dir/check.log")"
grep -q "ok (" "$dir/check.log" || fail "retcon check did not say ok: $(cat "$dir/check.log")"
wait "$bot" || fail "the bot exited with $?"
grep -q "the server ended the match" "$dir/bot.log" || fail "the bot did not see the match end"

# The server told the sidecar: shutdown, and the room back.
final=$(http GET /test/state) || fail "the stand-in does not answer"
echo "$final" >"$dir/standin-state.json"
grep -q '"state":"Shutdown"' <<<"$final" || fail "the stand-in does not hold the server Shutdown: $final"
grep -q '"shutdown"' <<<"$final" || fail "the stand-in never saw POST /shutdown: $final"
grep -q '"rooms":{"count":0,' <<<"$final" || fail "the room was not given back: $final"
grep -q "agones: shutdown sent" "$dir/server.log" || fail "the server's log does not say it sent shutdown"
grep -q "agones: SIGTERM; exiting\|agones: the GameServer is Shutdown; exiting" "$dir/server.log" ||
  fail "the server's log does not say why it stopped waiting"
grep -q "stopped: 1 matches ended" "$dir/server.log" || fail "the server did not report its match ended"
echo "PASS: SIGTERM on Agones drains the match (complete replay), gives the room back, says shutdown and exits 0 in ${took} s"
