#!/usr/bin/env bash
# Drives the terminal client in tmux: it must draw the arena and the status line, respond to
# keys (frames advance; space fires a bullet that shows inside the arena), quit on 'q' with
# status 0, and leave the terminal restored (canonical mode and echo back on).
#   demo_tmux.sh DEMO_SERVER DEMO_CLIENT SCRATCH_DIR
# Time limits below are give-up bounds only.
set -euo pipefail
server_bin=$1 client_bin=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"

source "$(dirname "$0")/lib.sh"
session="retcon-test-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; cleanup' EXIT
screen() { tmux capture-pane -p -t "$session"; }
# fail_screen MESSAGE: fail, with the screen as it is now among the logs lib.sh's fail prints.
fail_screen() { screen >"$dir/screen.log" 2>&1 || true; fail "$@"; }
on_screen() { screen | grep -q -- "$1"; } # on_screen PATTERN

# What demo_client/render.cpp draws: the arena between a '+---+' row above and below, each of
# its rows between '|' borders; a bullet is '+', which nothing else inside the arena uses
# (ships are arrows or digits, asteroids @ O o, dust . *). The status line ("retcon | ...")
# and the score line are outside the '|' rows.
# bullet_in_arena SCREEN: true if a bullet is drawn inside the arena (the border stripped).
bullet_in_arena() { printf '%s\n' "$1" | sed -n 's/^|\(.*\)|$/\1/p' | grep -q '+'; }
bullet_on_screen() { bullet_in_arena "$(screen)"; }

# Port 0: the server takes a free port and prints it, so parallel runs never collide.
"$server_bin" --port 0 --players 1 --duration 40 --quiet >"$dir/server.log" 2>&1 &
pids+=($!)
port=$(server_port "$dir/server.log") || exit 1
tmux new-session -d -s "$session" -x 100 -y 32 "bash --norc --noprofile"
tmux send-keys -t "$session" "stty -a > $dir/tty-before; $client_bin --connect 127.0.0.1:$port --name tester; echo EXIT=\$?" Enter

wait_for 10 on_screen "retcon | tester slot 0" || fail_screen "status line never appeared"
wait_for 5 on_screen "^+--" || fail_screen "arena border not drawn"
frame_of() { screen | grep -o "frame [0-9]*" | head -n 1 | grep -o "[0-9]*"; }
f1=$(frame_of); sleep 1; f2=$(frame_of)
[ "$f2" -gt "$f1" ] || fail_screen "frames do not advance ($f1 -> $f2)"
for _ in $(seq 1 12); do tmux send-keys -t "$session" d; sleep 0.05; done

# Before firing, the arena has no bullet: the check below can fail (the border is all '+').
before=$(screen)
printf '%s\n' "$before" | grep -q '^|' || fail_screen "no arena rows on the screen"
! bullet_in_arena "$before" || fail_screen "a bullet in the arena before pressing space"
# A bullet lives 70 frames (about 1.2 s) unless it hits an asteroid first: fire up to 3 times.
fired=no
for _ in 1 2 3; do
  tmux send-keys -t "$session" ' '
  if wait_for 1 bullet_on_screen; then fired=yes; break; fi
done
[ "$fired" = yes ] || fail_screen "no bullet inside the arena after pressing space"

tmux send-keys -t "$session" q
wait_for 10 on_screen "EXIT=0" || fail_screen "client did not exit cleanly on q"
tmux send-keys -t "$session" "stty -a | diff - $dir/tty-before && echo TTY=RESTORED" Enter
wait_for 5 on_screen "TTY=RESTORED" || fail_screen "terminal settings differ after the client exited"
echo "PASS: drew the arena, advanced frames, fired a bullet inside it, quit and restored the terminal"
