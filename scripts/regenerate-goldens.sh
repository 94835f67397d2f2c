#!/usr/bin/env bash
# Regenerates the golden files on purpose: the golden demo match, tests/data/golden_demo.rcr,
# and the snapshot corpus, tests/data/golden_v1.rcs, golden_v1_b.rcs, golden_v2.rcr and
# tests/data/corrupt/* (its script is tests/snapshot/corpus.cpp, "[.generate]").
#
# Every build, compiler and CPU architecture must re-simulate the golden match to its recorded
# per-frame hashes (docs/determinism.md). Regenerate it only when the hashes change on purpose:
# the demo game's rules, the schema serialisation, the world image layout or the iteration order
# (a new simulation semantics: docs/determinism.md, "Simulation semantics") changed. Never to
# make a failing determinism check pass: a target that disagrees has found a real divergence.
# A replay format change rewrites the files too (same hashes, new bytes).
# Never regenerated: tests/data/golden_semantics1.* (what semantics 1 wrote) and golden_v1.rcr
# (what replay format 1 wrote).
#
#   scripts/regenerate-goldens.sh "why the hashes change"
#
# Records the match with a fresh release build, checks that build re-simulates it, and prints
# the old and new schema hash and size so the commit can say what changed; then rewrites the
# snapshot corpus and checks it. Commit the files with the reason in the message.
#
# RETCON_GOLDEN_BUILD=DIR uses an existing, configured build tree instead of build/golden (it is
# not reconfigured), and RETCON_GOLDEN_JOBS its parallelism (default 2): on a shared machine,
#   RETCON_GOLDEN_BUILD=build/ci RETCON_GOLDEN_JOBS=1 scripts/regenerate-goldens.sh "..."
set -euo pipefail
cd "$(dirname "$0")/.."
if (($# != 1)) || [ -z "$1" ]; then
  echo "usage: scripts/regenerate-goldens.sh \"reason the golden hashes change\"" >&2
  exit 2
fi
reason="$1"
build=${RETCON_GOLDEN_BUILD:-build/golden}
if [ -z "${RETCON_GOLDEN_BUILD:-}" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DRETCON_BUILD_BENCHMARKS=OFF >/dev/null
fi
cmake --build "$build" -j"${RETCON_GOLDEN_JOBS:-2}" --target demo_golden demo_client retcon_cli retcon_snapshot_tests
golden=tests/data/golden_demo.rcr
old_schema=$("$build/tools/retcon" inspect "$golden" 2>/dev/null | sed -n 's/^schema //p' || true)
"$build/tests/integration/demo_golden" record "$golden.new"
"$build/demo_client/demo_client" --replay "$golden.new" --headless
mv "$golden.new" "$golden"
new_schema=$("$build/tools/retcon" inspect "$golden" | sed -n 's/^schema //p')
echo "regenerated $golden ($(stat -c %s "$golden") bytes); schema ${old_schema:-?} -> $new_schema"
# The snapshot corpus: written by its script, then read back by the corpus tests.
"$build/tests/retcon_snapshot_tests" "[.generate]" >/dev/null
"$build/tests/retcon_snapshot_tests" "[corpus]"
echo "regenerated tests/data/golden_v1.rcs, golden_v1_b.rcs, golden_v2.rcr and tests/data/corrupt/*"
echo "reason: $reason"
echo "commit them with: git commit -m \"golden files regenerated: $reason\" $golden tests/data/golden_v1.rcs" \
  "tests/data/golden_v1_b.rcs tests/data/golden_v2.rcr tests/data/corrupt"
