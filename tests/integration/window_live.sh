#!/usr/bin/env bash
# The windowed client in a live match, under Xvfb: two windowed bots (leaving after 3 s and after
# 5 s, each with the net graph shown and a screenshot of its last picture) and a headless bot
# join one demo_server. Each windowed client must exit 0 with "desyncs: 0" and leave its
# screenshot; the net graph's part of the two pictures must hold plots (pixels brighter than the
# background and the graph's dark panel) and differ. Skipped (exit 77) without xvfb-run.
#   window_live.sh DEMO_SERVER DEMO_CLIENT SCRATCH_DIR
# Time limits below are give-up bounds only.
set -euo pipefail
server_bin=$1 client_bin=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
source "$(dirname "$0")/lib.sh"
if ! command -v xvfb-run >/dev/null || ! command -v Xvfb >/dev/null; then
  echo "skipped: no SDL2/Xvfb (xvfb-run or Xvfb not found; scripts/setup.sh installs them)"
  exit 77
fi

# Port 0: the server takes a free port and prints it, so parallel runs never collide.
"$server_bin" --port 0 --players 3 --duration 12 --quiet >"$dir/server.log" 2>&1 &
server=$!
pids+=("$server")
port=$(server_port "$dir/server.log") || exit 1
"$client_bin" --connect "127.0.0.1:$port" --bot --headless --name bot --seed 2 >"$dir/bot.log" 2>&1 &
bot=$!
pids+=("$bot")
window() { # NAME SECONDS: a windowed bot on its own virtual display (exec: the job's PID is xvfb-run)
  exec xvfb-run -a -s "-screen 0 1280x800x24" "$client_bin" --connect "127.0.0.1:$port" --window --bot \
    --net-graph --name "$1" --seed 7 --duration "$2" --screenshot "$dir/$1.bmp" >"$dir/$1.log" 2>&1
}
window late 5 & late=$!
sleep 1 # xvfb-run -a picks a free display by looking: two at one instant could pick the same
window early 3 & early=$!
pids+=("$early" "$late")
for n in early late; do
  p=${!n}
  wait "$p" || fail "the windowed client '$n' exited with $?"
  grep -q "duration reached" "$dir/$n.log" || fail "$n did not play to its duration"
  grep -q "^desyncs: 0$" "$dir/$n.log" || fail "$n reported desyncs"
  [ -s "$dir/$n.bmp" ] || fail "$n left no screenshot"
done
wait "$bot" || fail "the headless bot exited with $?"
wait "$server" || fail "the server exited with $?"

# The net graph takes the right third of a window wider than tall (window/window_client.cpp).
python3 - "$dir/early.bmp" "$dir/late.bmp" <<'PY' || fail "the net graph's region is wrong (above)"
import struct, sys

def read_bmp(path):
    """A 24-bit uncompressed BMP (canvas.cpp's picture::save_bmp): width, height, rows top first."""
    data = open(path, "rb").read()
    if data[:2] != b"BM":
        sys.exit(f"{path}: not a BMP")
    offset, = struct.unpack_from("<I", data, 10)
    width, height, _, bits, compression = struct.unpack_from("<iiHHI", data, 18)
    if bits != 24 or compression != 0:
        sys.exit(f"{path}: {bits}-bit, compression {compression}; expected 24-bit uncompressed")
    stride = (width * 3 + 3) & ~3
    rows = []
    for y in range(abs(height)):
        row = y if height < 0 else abs(height) - 1 - y  # positive height: stored bottom-up
        start = offset + row * stride
        line = data[start:start + width * 3]
        rows.append([(line[i + 2], line[i + 1], line[i]) for i in range(0, width * 3, 3)])  # BGR
    return width, abs(height), rows

(w1, h1, a), (w2, h2, b) = read_bmp(sys.argv[1]), read_bmp(sys.argv[2])
if (w1, h1) != (w2, h2) or w1 < h1:
    sys.exit(f"pictures of {w1}x{h1} and {w2}x{h2}: expected one size, wider than tall")
left = w1 - w1 // 3 + 2  # inside the graph's panel
region = [(x, y) for y in range(h1) for x in range(left, w1)]
# Drawn: brighter than the background and the graph's dark panel (plots, values, labels).
drawn = [sum(1 for x, y in region if max(p[y][x]) >= 60) for p in (a, b)]
changed = sum(1 for x, y in region if a[y][x] != b[y][x])
print(f"net graph region {w1 - left}x{h1}: {drawn[0]} and {drawn[1]} pixels drawn, {changed} differ")
least = len(region) // 200  # 0.5% of the panel: plots and their labels, not a stray dot
if min(drawn) < least:
    sys.exit(f"the net graph holds fewer than {least} drawn pixels")
if changed < least // 5:  # moved plots and new current values
    sys.exit(f"the net graph's pictures at 3 s and 5 s differ in fewer than {least // 5} pixels")
PY
echo "PASS: windowed clients played live, 0 desyncs, screenshots with a net graph that changed"
