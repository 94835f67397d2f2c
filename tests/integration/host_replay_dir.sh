#!/usr/bin/env bash
# demo_server --replay-dir with a directory that does not exist (docs/hosting.md, "Replay
# directory" and "Exit status"), as processes:
#  1. a new, nested directory is made; the one open match (--duration 1, nobody joins) is
#     recorded there; the result line says recording_failed false; `retcon check` passes the
#     replay; the server exits 0. The same through RETCON_REPLAY_DIR.
#  2. a regular file in the directory's place: the server does not start, exits 2, and its
#     error names the path; the file is left as it was.
#   host_replay_dir.sh DEMO_SERVER RETCON SCRATCH_DIR
# Time limits below are give-up bounds only.
set -euo pipefail
server_bin=$1 retcon_bin=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"

source "$(dirname "$0")/lib.sh"

# run_recorded NAME REPLAYS [ENV...]: a server whose replay directory REPLAYS does not exist yet.
run_recorded() {
  local name=$1 replays=$2; shift 2
  [ ! -e "$replays" ] || fail "$name: $replays exists before the run"
  status=0
  env "$@" timeout 30 "$server_bin" --port 0 --duration 1 --quiet ${replays_flag:+--replay-dir "$replays"} \
    >"$dir/$name.log" 2>"$dir/$name.err" || status=$?
  [ "$status" -eq 0 ] || fail "$name: the server exited with $status"
  [ -d "$replays" ] || fail "$name: $replays was not made"
  [ -s "$replays/open-1.rcr" ] || fail "$name: no replay in $replays"
  grep -q "^{\"event\":\"match_result\",\"match_id\":\"open-1\".*\"replay_path\":\"$replays/open-1.rcr\".*\"recording_failed\":false,\"recording_error\":\"\"" \
    "$dir/$name.log" || fail "$name: the result line does not name the replay: $(grep match_result "$dir/$name.log")"
  "$retcon_bin" check "$replays/open-1.rcr" >"$dir/$name-check.log" 2>&1 ||
    fail "$name: retcon check failed: $(cat "$dir/$name-check.log")"
}

# 1. Made at start, by the option and by the environment.
replays_flag=1 run_recorded option "$dir/new/nested/replays"
replays_flag= run_recorded environment "$dir/from-env/replays" RETCON_REPLAY_DIR="$dir/from-env/replays"

# 2. A regular file where the directory should be.
echo "not a directory" >"$dir/taken"
status=0
timeout 30 "$server_bin" --port 0 --duration 1 --quiet --replay-dir "$dir/taken" >"$dir/taken.log" 2>"$dir/taken.err" ||
  status=$?
[ "$status" -eq 2 ] || fail "taken: the server exited with $status, expected 2 (did not start)"
grep -q "the replay directory $dir/taken cannot be used: $dir/taken exists and is not a directory" "$dir/taken.err" ||
  fail "taken: the error does not name the path: $(cat "$dir/taken.err")"
! grep -q "listening on UDP port" "$dir/taken.log" || fail "taken: the server started"
[ "$(cat "$dir/taken")" = "not a directory" ] || fail "taken: the file was changed"
echo "PASS: a missing replay directory is made and recorded into (exit 0); a file in its place stops the server (exit 2)"
