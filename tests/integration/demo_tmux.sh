#!/usr/bin/env bash
# Drives the terminal client in tmux: it must draw the arena and the status line, respond to
# keys (turning changes the ship glyph; frames advance), quit on 'q' with status 0, and leave
# the terminal restored (canonical mode and echo back on).
set -euo pipefail
server_bin=$1 client_bin=$2
port=$((30000 + ($$ + 7) % 20000))
session="retcon-test-$$"
log=$(mktemp)
cleanup() { tmux kill-session -t "$session" 2>/dev/null || true; kill "$server" 2>/dev/null || true; rm -f "$log"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- screen:"; tmux capture-pane -p -t "$session" || true; exit 1; }

"$server_bin" --port "$port" --players 1 --duration 40 --quiet >"$log" 2>&1 &
server=$!
sleep 0.3
tmux new-session -d -s "$session" -x 100 -y 32 "bash --norc --noprofile"
tmux send-keys -t "$session" "stty -a > /tmp/retcon-tty-before-$$; $client_bin --connect 127.0.0.1:$port --name tester; echo EXIT=\$?" Enter

wait_for() { # pattern seconds
  for _ in $(seq 1 $(( $2 * 10 ))); do
    tmux capture-pane -p -t "$session" | grep -q -- "$1" && return 0
    sleep 0.1
  done
  return 1
}
wait_for "retcon | tester slot 0" 10 || fail "status line never appeared"
wait_for "^+--" 5 || fail "arena border not drawn"
frame_of() { tmux capture-pane -p -t "$session" | grep -o "frame [0-9]*" | head -n 1 | grep -o "[0-9]*"; }
f1=$(frame_of); sleep 1; f2=$(frame_of)
[ "$f2" -gt "$f1" ] || fail "frames do not advance ($f1 -> $f2)"
glyph() { tmux capture-pane -p -t "$session" | grep -o '\x1b\?\[[0-9;]*m\?[<>v^/\\]' | head -n 1; }
for _ in $(seq 1 12); do tmux send-keys -t "$session" d; sleep 0.05; done
tmux send-keys -t "$session" ' '
sleep 0.5
screen=$(tmux capture-pane -p -t "$session")
echo "$screen" | grep -q '+' || fail "no bullet after pressing space"
tmux send-keys -t "$session" q
wait_for "EXIT=0" 10 || fail "client did not exit cleanly on q"
tmux send-keys -t "$session" "stty -a | diff - /tmp/retcon-tty-before-$$ && echo TTY=RESTORED; rm -f /tmp/retcon-tty-before-$$" Enter
wait_for "TTY=RESTORED" 5 || fail "terminal settings differ after the client exited"
echo "PASS: drew the arena, advanced frames, responded to keys, quit and restored the terminal"
