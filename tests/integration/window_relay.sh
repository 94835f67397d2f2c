#!/usr/bin/env bash
# Drawing does not degrade the netcode: in one match through one seeded impairment relay
# (retcon-relay: 40 ms ± 10 ms each way, 5% loss), a windowed bot under Xvfb and a headless bot
# play side by side with a third, headless opponent. Each of the two must exit 0 with
# "desyncs: 0", and the windowed one must do as well as the headless one within stated bounds:
#   - inputs the server replaced (sent too late): at most the headless player's + 5;
#   - rollbacks per 100 frames: at most twice the headless player's + 10;
#   - frames re-simulated per rollback (depth): at most 1.5 times the headless player's + 1;
#   - stalls: at most the headless player's + 3; round trip: at most 1.25 times its + 10 ms.
# Measured on 2 cores: window and headless within about 10% of each other on depth and round
# trip, 0 replaced and 0 stalls each, rollbacks per 100 frames 15-45 each (two players of one
# match differ by up to 2x from run to run: each meets other impairments of the one seeded
# generator). A window whose loop slept 100 ms after each picture (ticks held back by drawing)
# showed depth 12.8 against 5.4, 7 stalls and a round trip of 260 ms against 92: caught by the
# last three bounds, while its rollbacks per 100 frames fell (its ticks came in bursts).
# Skipped (exit 77) without xvfb-run.
#   window_relay.sh DEMO_SERVER DEMO_CLIENT RETCON_RELAY SCRATCH_DIR
# Time limits below are give-up bounds only.
set -euo pipefail
server_bin=$1 client_bin=$2 relay_bin=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir"
source "$(dirname "$0")/lib.sh"
if ! command -v xvfb-run >/dev/null || ! command -v Xvfb >/dev/null; then
  echo "skipped: no SDL2/Xvfb (xvfb-run or Xvfb not found; scripts/setup.sh installs them)"
  exit 77
fi

seconds=10
"$server_bin" --port 0 --players 3 --duration "$seconds" >"$dir/server.log" 2>&1 &
server=$!
pids+=("$server")
port=$(server_port "$dir/server.log") || exit 1
"$relay_bin" --listen 0 --server "127.0.0.1:$port" --delay 40 --jitter 10 --loss 0.05 --seed 5 \
  --duration $((seconds + 30)) >"$dir/relay.log" 2>&1 &
relay=$!
pids+=("$relay")
relay_port=$(server_port "$dir/relay.log" retcon-relay) || exit 1
client() { # NAME SEED OPTIONS...: a bot through the relay
  local name=$1 seed=$2
  shift 2
  "$client_bin" --connect "127.0.0.1:$relay_port" --bot --name "$name" --seed "$seed" "$@"
}
client opponent 2 --headless >"$dir/opponent.log" 2>&1 &
opponent=$!
client headless 7 --headless >"$dir/headless.log" 2>&1 &
headless=$!
xvfb-run -a "$client_bin" --connect "127.0.0.1:$relay_port" --bot --name window --seed 8 --window --net-graph \
  >"$dir/window.log" 2>&1 &
window=$!
pids+=("$opponent" "$headless" "$window")
for n in window headless opponent server; do
  p=${!n}
  wait "$p" || fail "$n exited with $?"
done
for n in window headless opponent; do
  grep -q "the server ended the match" "$dir/$n.log" || fail "$n did not see the match end"
  grep -q "^desyncs: 0$" "$dir/$n.log" || fail "$n reported desyncs"
done

python3 - "$dir" <<'PY' || fail "the windowed player did worse than the bound (above)"
import json, re, sys
d = sys.argv[1]
result = next(json.loads(l) for l in open(f"{d}/server.log") if l.startswith('{"event":"match_result"'))
def figures(name):
    summary = open(f"{d}/{name}.log").read()
    count = lambda what: float(re.search(rf"^  {what}: ([0-9.]+)", summary, re.M).group(1))
    return {
        "replaced": next(s["replaced_inputs"] for s in result["slots"] if s["name"] == name),
        "rate": 100.0 * count("rollbacks") / max(1.0, count("frames")),
        "depth": count("frames re-simulated") / max(1.0, count("rollbacks")),
        "stalls": count("stalls"),
        "rtt": count("rtt"),
    }
w, h = figures("window"), figures("headless")
for name, f in (("window", w), ("headless", h)):
    print(f"{name}: {f['replaced']} inputs replaced, {f['rate']:.1f} rollbacks per 100 frames, "
          f"depth {f['depth']:.1f}, {f['stalls']:.0f} stalls, rtt {f['rtt']:.1f} ms")
bounds = (
    ("replaced inputs", w["replaced"], h["replaced"] + 5),
    ("rollbacks per 100 frames", w["rate"], 2 * h["rate"] + 10),
    ("frames re-simulated per rollback", w["depth"], 1.5 * h["depth"] + 1),
    ("stalls", w["stalls"], h["stalls"] + 3),
    ("round trip (ms)", w["rtt"], 1.25 * h["rtt"] + 10),
)
over = [f"{what}: {got:.1f} > {bound:.1f}" for what, got, bound in bounds if got > bound]
if over:
    sys.exit("the window is outside the bounds: " + "; ".join(over))
PY
echo "PASS: the windowed and the headless player within the bound through one seeded relay"
