#!/usr/bin/env bash
# The replay viewer in a window, as a script would run it under Xvfb: a seek, paused, leaving after
# --duration with exit 0 and a screenshot (a BMP) of the frame it stood at. A file it cannot read
# exits 2 before any window opens. Without xvfb-run, or in a build without the window, it says
# "skipped: no SDL2/Xvfb" and exits 77, which ctest reports as skipped.
set -euo pipefail
client_bin=$1 replay=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"

out=$(DISPLAY= "$client_bin" --window --replay "$dir/absent.rcr" 2>&1) && rc=0 || rc=$?
if printf '%s\n' "$out" | grep -q "this build has no window"; then
  echo "skipped: no SDL2/Xvfb (demo_client was built without its window)"
  exit 77
fi
# Unreadable: exit 2 and a message, before a display is needed.
if [ "$rc" != 2 ] || ! printf '%s\n' "$out" | grep -q "replay NOT readable"; then
  echo "FAIL: a missing replay gave exit $rc: $out" && exit 1
fi
printf 'not a replay at all' > "$dir/text.rcr"
# Damaged: a byte in the middle overwritten (every keyframe is checked when the file opens).
cp "$replay" "$dir/damaged.rcr"
size=$(wc -c < "$replay")
printf '\x5a\xa5\x5a\xa5' | dd of="$dir/damaged.rcr" bs=1 seek=$((size / 2)) conv=notrunc status=none
for bad in text damaged; do
  out=$(DISPLAY= "$client_bin" --window --replay "$dir/$bad.rcr" 2>&1) && rc=0 || rc=$?
  if [ "$rc" != 2 ] || ! printf '%s\n' "$out" | grep -q "replay NOT readable"; then
    echo "FAIL: $bad.rcr gave exit $rc: $out" && exit 1
  fi
done

if ! command -v xvfb-run >/dev/null; then
  echo "skipped: no SDL2/Xvfb (xvfb-run not found; scripts/setup.sh installs it)"
  exit 77
fi
shot="$dir/viewer.bmp"
xvfb-run -a "$client_bin" --window --replay "$replay" --seek 300 --paused --duration 1 --screenshot "$shot" \
  >"$dir/viewer.log" 2>&1 && rc=0 || rc=$?
cat "$dir/viewer.log"
if [ "$rc" != 0 ]; then echo "FAIL: the viewer exited $rc" && exit 1; fi
# Paused at the frame asked for, and verified (the frames the seek re-simulated).
grep -Eq "frame 300 / [0-9]+ .*paused, verified [0-9]+ frames" "$dir/viewer.log" ||
  { echo "FAIL: the viewer did not stand verified at frame 300" && exit 1; }
[ -s "$shot" ] || { echo "FAIL: no screenshot at $shot" && exit 1; }
[ "$(head -c 2 "$shot")" = BM ] || { echo "FAIL: $shot is not a BMP" && exit 1; }
# A 1000 x 640 picture at 24 bits a pixel is well over a megabyte.
[ "$(wc -c < "$shot")" -gt 1000000 ] || { echo "FAIL: $shot is too small for the window" && exit 1; }
echo "ok: paused at frame 300, verified, screenshot $shot"
