#!/usr/bin/env bash
# Admission by join token with real processes over ENet on loopback (docs/join-tokens.md,
# docs/hosting.md "Admission"): retcon-token makes a key pair and issues tokens for one match of
# 2 players (slots 0 and 1); demo_server --token-key admits only those. Each bot given a token
# plays in the token's slot (bob's token is for slot 1 and he comes first); a client without a
# token, one with a token for another fleet and one reusing a token while its player plays are
# refused with a message saying why, and exit 3; the match result line names the players' ids.
#   host_tokens.sh DEMO_SERVER DEMO_CLIENT RETCON_TOKEN SCRATCH_DIR
# Time limits below are give-up bounds only.
set -euo pipefail
server_bin=$1 client_bin=$2 token_bin=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir"

source "$(dirname "$0")/lib.sh"

"$token_bin" keygen --key-id 4 --secret "$dir/lobby.key" --public "$dir/lobby.pub" >"$dir/keygen.log" 2>&1 ||
  fail "retcon-token keygen failed"
issue() { # slot player-id name fleet
  "$token_bin" issue --secret "$dir/lobby.key" --match duel-7 --slot "$1" --player-id "$2" --name "$3" --fleet "$4" \
    --players 2 --tick 60 --seed 7 --settings map=canyon --ttl 600
}
ann_token=$(issue 0 1001 ann eu-1) || fail "retcon-token issue failed"
bob_token=$(issue 1 1002 bob eu-1) || fail "retcon-token issue failed"
stranger_token=$(issue 0 1003 eve us-2) || fail "retcon-token issue failed"

"$server_bin" --port 0 --token-key "$dir/lobby.pub" --fleet eu-1 --drain-grace 1 --replay-dir "$dir" --quiet \
  >"$dir/server.log" 2>"$dir/server.err" &
server=$!; pids+=("$server")
port=$(server_port "$dir/server.log") || exit 1
grep -q "join tokens required, fleet 'eu-1'" "$dir/server.log" || fail "the server does not say it requires tokens"

client() { # name seed log [extra...] (exec: the background job's PID is the client itself)
  local name=$1 seed=$2 log=$3; shift 3
  exec "$client_bin" --connect "127.0.0.1:$port" --bot --headless --name "$name" --seed "$seed" "$@" \
    >"$log" 2>"${log%.log}.err"
}

# bob first: his token's slot 1, not the first free one.
client bob 2 "$dir/bob.log" --token "$bob_token" & bob=$!; pids+=("$bob")
wait_for 10 playing "$dir/bob.log" || fail "bob never played"
client ann 1 "$dir/ann.log" --token "$ann_token" & ann=$!; pids+=("$ann")
wait_for 10 playing "$dir/ann.log" || fail "ann never played"
[ "$(slot_of "$dir/bob.log")" = 1 ] || fail "bob plays slot $(slot_of "$dir/bob.log"), his token says 1"
[ "$(slot_of "$dir/ann.log")" = 0 ] || fail "ann plays slot $(slot_of "$dir/ann.log"), her token says 0"

# refused NAME REGEX [extra...]: the client is refused, exits 3 and its log says why. (Admitted by
# mistake, it leaves after 5 s: exit 0.)
refused() {
  local name=$1 regex=$2; shift 2
  local status=0
  "$client_bin" --connect "127.0.0.1:$port" --bot --headless --duration 5 --name "$name" "$@" \
    >"$dir/$name.log" 2>"$dir/$name.err" || status=$?
  [ "$status" -eq 3 ] || fail "$name: exit $status, expected 3 (refused)"
  grep -Eq "rejected: .*$regex" "$dir/$name.log" || fail "$name was not refused with '$regex'"
  grep -q "slot: none (never joined)" "$dir/$name.log" || fail "$name got a slot"
}
refused no-token "no join token"
refused other-fleet "join token is for fleet 'us-2', this server is 'eu-1'" --token "$stranger_token"
refused reused "in use by another connection" --token "$ann_token"
# The players were not disturbed.
for p in "$ann" "$bob"; do kill -0 "$p" 2>/dev/null || fail "a player's client ended during the refusals"; done
if grep -q "replaced by" "$dir/server.log"; then fail "a refused client replaced a player"; fi

# End the match: the result names both players by their lobby ids.
kill -TERM "$server"
wait_for 15 gone "$server" || fail "the server still runs 15 s after SIGTERM"
status=0; wait "$server" || status=$?
[ "$status" -eq 0 ] || fail "the server exited with $status"
for p in "$ann" "$bob"; do wait "$p" || fail "client $p exited with $?"; done
for n in ann bob; do grep -q "the server ended the match" "$dir/$n.log" || fail "$n did not see the match end"; done
result=$(grep '^{"event":"match_result"' "$dir/server.log") || fail "no match result line"
[ "$(printf '%s\n' "$result" | wc -l)" -eq 1 ] || fail "more than one match result"
for want in '"match_id":"duel-7"' '"slot":0,"player_id":1001,"name":"ann"' '"slot":1,"player_id":1002,"name":"bob"' \
  '"joins":2'; do
  printf '%s\n' "$result" | grep -qF "$want" || fail "the result lacks $want: $result"
done
[ "$(grep -c "refused: " "$dir/server.log")" -ge 1 ] || fail "the server logged no refusal"
echo "PASS: tokens put ann and bob in their slots; no token, another fleet's and a reused token were refused"
