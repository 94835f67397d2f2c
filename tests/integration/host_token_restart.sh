#!/usr/bin/env bash
# A token-mode demo_server with --duration exits once its match has ended (as --help says), and a
# server restarted over the same replay directory refuses the ended match's join token: the
# ended-matches ledger keeps its id ended, and its replay is never rewritten (docs/hosting.md,
# "Ended matches").
#   host_token_restart.sh DEMO_SERVER DEMO_CLIENT RETCON_TOKEN SCRATCH_DIR
# Time limits below are give-up bounds only.
set -euo pipefail
server_bin=$1 client_bin=$2 token_bin=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir/replays"

source "$(dirname "$0")/lib.sh"

"$token_bin" keygen --key-id 4 --secret "$dir/lobby.key" --public "$dir/lobby.pub" >"$dir/keygen.log" 2>&1 ||
  fail "retcon-token keygen failed"
token=$("$token_bin" issue --secret "$dir/lobby.key" --match duel-9 --slot 0 --player-id 1001 --name ann \
  --fleet eu-1 --players 1 --tick 60 --seed 7 --ttl 600) || fail "retcon-token issue failed"

serve() { # log [extra...]
  local log=$1; shift
  "$server_bin" --port 0 --token-key "$dir/lobby.pub" --fleet eu-1 --drain-grace 1 --replay-dir "$dir/replays" \
    --quiet "$@" >"$log" 2>"${log%.log}.err" &
}

# 1. --duration 3: the match the token opens ends after 3 s, and the server exits by itself.
serve "$dir/first.log" --duration 3
server=$!; pids+=("$server")
port=$(server_port "$dir/first.log") || exit 1
"$client_bin" --connect "127.0.0.1:$port" --bot --headless --name ann --token "$token" \
  >"$dir/ann.log" 2>"$dir/ann.err" & ann=$!; pids+=("$ann")
wait_for 10 playing "$dir/ann.log" || fail "ann never played"
wait_for 20 gone "$server" || fail "the token-mode server still runs 20 s after its 3 s match began"
status=0; wait "$server" || status=$?
[ "$status" -eq 0 ] || fail "the server exited with $status"
wait "$ann" || fail "ann's client exited with $?"
[ "$(grep -c '^{"event":"match_result"' "$dir/first.log")" -eq 1 ] || fail "not one match result"
[ -s "$dir/replays/duel-9.rcr" ] || fail "no replay"
cp "$dir/replays/duel-9.rcr" "$dir/played.rcr"
grep -q " duel-9$" "$dir/replays/ended-matches.ledger" || fail "the ledger does not hold duel-9"

# 2. Restarted over the same directory: the used, unexpired token is refused as ended.
serve "$dir/second.log"
server=$!; pids+=("$server")
port=$(server_port "$dir/second.log") || exit 1
status=0
"$client_bin" --connect "127.0.0.1:$port" --bot --headless --duration 5 --name ann --token "$token" \
  >"$dir/again.log" 2>"$dir/again.err" || status=$?
[ "$status" -eq 3 ] || fail "the ended match's token: exit $status, expected 3 (refused)"
grep -Eq "rejected: .*match 'duel-9' has ended" "$dir/again.log" || fail "not refused as ended"
kill -TERM "$server"
wait_for 15 gone "$server" || fail "the server still runs 15 s after SIGTERM"
status=0; wait "$server" || status=$?
[ "$status" -eq 0 ] || fail "the restarted server exited with $status"
if grep -q '"event":"match_result"' "$dir/second.log"; then fail "the restarted server wrote a result"; fi
cmp -s "$dir/played.rcr" "$dir/replays/duel-9.rcr" || fail "the replay changed after the restart"
echo "PASS: the token-mode server exited after its match; restarted, it refused the ended match's token"
