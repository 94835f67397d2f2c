#!/usr/bin/env bash
# The README's screenshots, taken from a real match (never drawn by hand):
#   docs/images/net-graph.png      demo_client --window --net-graph, a bot playing through
#                                  retcon-relay at 120 ms plus 0-30 ms of jitter and 5% loss each way, against
#                                  demo_server and a second, headless bot on loopback
#   docs/images/replay-viewer.png  demo_client --window --replay on that match's recording, paused
#                                  at a frame the seek re-simulated and verified
# The windows open on a virtual display (xvfb-run); ImageMagick turns their BMPs into PNGs. Builds
# what it runs in build/release (as scripts/demo.sh does); logs stay in build/release/screenshot-run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --screenshots
cmake --preset release >/dev/null
cmake --build --preset release --target demo_server demo_client retcon_relay
build=build/release
dir=$build/screenshot-run
out=docs/images
rm -rf "$dir" && mkdir -p "$dir" "$out"
source tests/integration/lib.sh # server_port, wait_for, fail; kills what is in $pids on exit

"$build/demo_server/demo_server" --port 0 --players 2 --duration 16 --record "$dir/match.rcr" \
  >"$dir/server.log" 2>&1 &
server=$!
pids+=("$server")
port=$(server_port "$dir/server.log")
"$build/tools/retcon-relay" --listen 0 --server "127.0.0.1:$port" --delay 120 --jitter 30 --loss 0.05 --seed 7 \
  --duration 60 >"$dir/relay.log" 2>&1 &
pids+=($!)
relay_port=$(server_port "$dir/relay.log" retcon-relay)
"$build/demo_client/demo_client" --connect "127.0.0.1:$port" --bot --headless --name bob --seed 2 \
  >"$dir/bob.log" 2>&1 &
pids+=($!)
# 12 s: the net graph's 10-second window is full of the impaired link by the time it is captured.
xvfb-run -a -s "-screen 0 1280x800x24" "$build/demo_client/demo_client" --window --net-graph \
  --connect "127.0.0.1:$relay_port" --bot --name alice --seed 1 --duration 12 \
  --screenshot "$dir/net-graph.bmp" >"$dir/alice.log" 2>&1 || fail "the windowed client failed"
wait_for 30 gone "$server" || fail "the server did not end its match"
grep -q "^desyncs: 0$" "$dir/alice.log" || fail "the windowed client saw a desync"

xvfb-run -a -s "-screen 0 1280x800x24" "$build/demo_client/demo_client" --window --replay "$dir/match.rcr" \
  --seek 540 --paused --duration 1 --screenshot "$dir/replay-viewer.bmp" >"$dir/viewer.log" 2>&1 ||
  fail "the replay viewer failed"

convert "$dir/net-graph.bmp" "$out/net-graph.png"
convert "$dir/replay-viewer.bmp" "$out/replay-viewer.png"
echo "screenshots: $out/net-graph.png $out/replay-viewer.png"
