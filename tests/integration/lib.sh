# Shared by the integration scripts that drive demo_server and demo_client as processes.
# Source it after setting $dir (the scratch directory); it kills every PID in $pids on exit.
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
# fail MESSAGE...: prints it and the tail of every log and stderr file under $dir, exits 1.
fail() {
  echo "FAIL: $*"
  while IFS= read -r f; do
    [ -s "$f" ] && { echo "--- $f"; tail -n 25 "$f"; }
  done < <(find "$dir" -name '*.log' -o -name '*.err' | sort)
  exit 1
}
# wait_for SECONDS COMMAND...: polls until COMMAND succeeds; false after SECONDS (a give-up bound).
wait_for() {
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}
gone() { ! kill -0 "$1" 2>/dev/null; }                       # gone PID: the process has ended
playing() { grep -q "playing slot" "$1"; }                   # playing LOG: the client has a slot
slot_of() { sed -n 's/^demo_client .*: playing slot \([0-9]*\)$/\1/p' "$1" | head -n 1; } # slot_of LOG
# server_port LOG [WHAT]: waits for the "listening on UDP port N" line of demo_server or retcon-relay and prints N
# (port 0: the server takes a free port and prints it, so parallel runs never collide).
server_port() {
  # Called as $(server_port ...): a failure reports on stderr, which the capture leaves alone.
  wait_for 10 grep -q "listening on UDP port" "$1" || fail "${2:+$2: }the server did not start" >&2
  local p
  p=$(sed -n 's/.*listening on UDP port \([0-9]*\).*/\1/p' "$1")
  [ "${p:-0}" -gt 0 ] || fail "${2:+$2: }no port in the server's log" >&2
  echo "$p"
}
