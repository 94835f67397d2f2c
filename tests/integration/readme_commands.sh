#!/usr/bin/env bash
# Runs the command blocks of README.md as written: every ```sh block but the first (the two
# set-up commands, which are CI's own first stage and the demo). They run in a scratch directory
# laid out as those commands leave the checkout — build/release holding the programs this build
# made, build/release/demo-run/match.rcr the replay scripts/demo.sh records (the golden one
# here) — with a scratch HOME, so a key the README writes under ~ stays in the scratch.
#   - a demo_server line runs in the background; at the end of its block it gets SIGTERM and must
#     drain and exit 0;
#   - a demo_client line runs in a terminal (tmux), must draw its status line, and must exit 0 on q
#     at the end of its block, and the server must log its player as having left, not as a lost
#     connection;
#   - a demo_client --window line runs in the background on a private Xvfb, must still be running
#     (its window open) 3 s later, and must exit 0 on SIGTERM at the end of its block (closing the
#     window);
#   - a retcon-relay line runs in the background and is stopped at the end of its block;
#   - any other line (shell variables, retcon-token) runs in this shell and must succeed.
# A README command that does not work as written (a program its set-up does not build, a
# directory nobody creates, an option the program lacks) fails here.
#   readme_commands.sh SOURCE_DIR BUILD_DIR SCRATCH_DIR
# Time limits below are give-up bounds only.
set -euo pipefail
source_dir=$1 build_dir=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
source "$(dirname "$0")/lib.sh"
sockets=()
trap 'for s in "${sockets[@]}"; do tmux -L "$s" kill-server 2>/dev/null || true; done; cleanup' EXIT

# The checkout after the README's set-up commands.
mkdir -p "$dir/build/release/demo-run" "$dir/home"
for sub in demo_server demo_client host tools; do ln -s "$build_dir/$sub" "$dir/build/release/$sub"; done
cp "$source_dir/tests/data/golden_demo.rcr" "$dir/build/release/demo-run/match.rcr"
export HOME="$dir/home"
cd "$dir"

# blocks: README's ```sh blocks, one command per line (backslash continuations joined), each
# block ended by a line "--".
blocks() {
  awk '
    /^```sh$/ { inside = 1; next }
    /^```/ && inside { inside = 0; if (line != "") print line; line = ""; print "--"; next }
    inside {
      sub(/[ \t]+#[^"]*$/, "")            # a trailing comment ("# terminal 1"), not a quoted "#"
      if (sub(/\\$/, "")) { line = line $0; next }
      line = line $0; print line; line = ""
    }' "$source_dir/README.md" | awk '!first_done { if ($0 == "--") first_done = 1; next } { print }'
}

servers=() clients=() windows=() relays=() n=0
# A display for the README's window lines: a private Xvfb, started at the first of them.
display=""
start_display() {
  [ -z "$display" ] || return 0
  command -v Xvfb >/dev/null || return 1
  Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$dir/display" 2>/dev/null &
  pids+=($!)
  wait_for 10 test -s "$dir/display" || return 1
  display=":$(head -n 1 "$dir/display")"
}
screen() { tmux -L "$1" capture-pane -p -t main 2>/dev/null; } # screen SOCKET
drawn() { screen "$1" | grep -Eq '^(retcon \||replay )'; }    # drawn SOCKET: a status line is on it
finish_block() {
  local c s w status
  for w in "${windows[@]}"; do
    kill -TERM "${w%%:*}" 2>/dev/null || true
    status=0
    wait_for 15 gone "${w%%:*}" || fail "${w#*:}: its window did not close 15 s after SIGTERM"
    wait "${w%%:*}" || status=$?
    [ "$status" -eq 0 ] || fail "${w#*:}: exit $status after SIGTERM"
  done
  for c in "${clients[@]}"; do
    tmux -L "$c" send-keys -t main q 2>/dev/null || true
    wait_for 15 test -s "$dir/$c.status" || { screen "$c" >"$dir/$c.screen.log" || true; fail "$(sed -n 2p "$dir/$c.sh"): no exit after q"; }
    grep -qx 'EXIT=0' "$dir/$c.status" || fail "$(sed -n 2p "$dir/$c.sh") exited $(cat "$dir/$c.status")"
  done
  for s in "${servers[@]}"; do
    kill -TERM "${s%%:*}"
    status=0
    wait_for 60 gone "${s%%:*}" || fail "${s#*:}: still running 60 s after SIGTERM"
    wait "${s%%:*}" || status=$?
    [ "$status" -eq 0 ] || fail "${s#*:}: exit $status after SIGTERM"
  done
  # Every player quit with q, which says goodbye: none may look like a lost connection.
  ! grep -h "player_left .*connection closed" "$dir"/s*.log || fail "a player who quit with q was logged as a lost connection"
  for s in "${relays[@]}"; do kill -TERM "$s" 2>/dev/null || true; done
  servers=() clients=() windows=() relays=()
}

ran=0
while IFS= read -r line; do
  [ -n "$line" ] || continue
  if [ "$line" = "--" ]; then finish_block; continue; fi
  n=$((n + 1)) ran=$((ran + 1))
  echo "\$ $line"
  case "$line" in
    build/release/demo_server/demo_server*)
      printf 'cd %q\nexec %s\n' "$dir" "$line" >"$dir/s$n.sh"
      bash "$dir/s$n.sh" </dev/null >"$dir/s$n.log" 2>&1 &
      pids+=($!) servers+=("$!:$line")
      wait_for 10 grep -q "listening on UDP port" "$dir/s$n.log" || fail "$line: not listening"
      ;;
    build/release/demo_client/demo_client*--window*)
      start_display || fail "$line: no display for its window (scripts/setup.sh installs xvfb)"
      printf 'cd %q\nexec %s\n' "$dir" "$line" >"$dir/w$n.sh"
      DISPLAY=$display bash "$dir/w$n.sh" </dev/null >"$dir/w$n.log" 2>&1 &
      pids+=($!) windows+=("$!:$line")
      sleep 3
      ! gone "$!" || fail "$line: exited at once (no window?)"
      ;;
    build/release/tools/retcon-relay*)
      printf 'cd %q\nexec %s\n' "$dir" "$line" >"$dir/r$n.sh"
      bash "$dir/r$n.sh" </dev/null >"$dir/r$n.log" 2>&1 &
      pids+=($!) relays+=("$!")
      wait_for 10 grep -q "listening on UDP port" "$dir/r$n.log" || fail "$line: not listening"
      ;;
    build/release/demo_client/demo_client*)
      c="readme-$$-c$n" # the tmux socket, the script and its status file
      printf 'cd %q\n%s\necho "EXIT=$?" >%s.status\n' "$dir" "$line" "$c" >"$dir/$c.sh"
      sockets+=("$c") clients+=("$c")
      tmux -L "$c" new-session -d -s main -x 120 -y 36 "bash --norc --noprofile $dir/$c.sh"
      wait_for 15 drawn "$c" || { screen "$c" >"$dir/$c.screen.log" || true; fail "$line: never drew its status line"; }
      ;;
    scripts/*) fail "$line: the set-up scripts belong in the README's first block, which this test leaves to CI" ;;
    *)
      set -a
      eval "$line" </dev/null >"$dir/l$n.log" 2>&1 || { set +a; fail "$line: failed"; }
      set +a
      ;;
  esac
done < <(blocks)
[ "$ran" -ge 8 ] || fail "only $ran README commands found: did the README's blocks move?"
echo "PASS: $ran README commands ran as written"
