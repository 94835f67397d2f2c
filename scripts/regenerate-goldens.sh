#!/usr/bin/env bash
# Regenerates the golden files on purpose: the golden demo match, tests/data/golden_demo.rcr,
# and the snapshot corpus, tests/data/golden_v1.* and tests/data/corrupt/* (its script is
# tests/snapshot/corpus.cpp, "[generate]").
#
# Every build, compiler and CPU architecture must re-simulate the golden match to its recorded
# per-frame hashes (docs/determinism.md). Regenerate it only when the hashes change on purpose:
# the demo game's rules, the schema serialisation, the world image layout or the iteration order
# (a new simulation semantics: docs/determinism.md, "Simulation semantics") changed. Never to
# make a failing determinism check pass: a target that disagrees has found a real divergence.
# tests/data/golden_semantics1.* are never regenerated: they are what semantics 1 wrote.
#
#   scripts/regenerate-goldens.sh "why the hashes change"
#
# Records the match with a fresh release build, checks that build re-simulates it, and prints
# the old and new schema hash and size so the commit can say what changed; then rewrites the
# snapshot corpus and checks it. Commit the files with the reason in the message.
set -euo pipefail
cd "$(dirname "$0")/.."
if (($# != 1)) || [ -z "$1" ]; then
  echo "usage: scripts/regenerate-goldens.sh \"reason the golden hashes change\"" >&2
  exit 2
fi
reason="$1"
build=build/golden
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DRETCON_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" -j2 --target demo_golden demo_client retcon_cli retcon_snapshot_tests
golden=tests/data/golden_demo.rcr
old_schema=$("$build/tools/retcon" inspect "$golden" 2>/dev/null | sed -n 's/^schema //p' || true)
"$build/tests/integration/demo_golden" record "$golden.new"
"$build/demo_client/demo_client" --replay "$golden.new" --headless
mv "$golden.new" "$golden"
new_schema=$("$build/tools/retcon" inspect "$golden" | sed -n 's/^schema //p')
echo "regenerated $golden ($(stat -c %s "$golden") bytes); schema ${old_schema:-?} -> $new_schema"
# The snapshot corpus: written by its script, then read back by the corpus tests.
"$build/tests/retcon_snapshot_tests" "[generate]" >/dev/null
"$build/tests/retcon_snapshot_tests" "[corpus]"
echo "regenerated tests/data/golden_v1.* and tests/data/corrupt/*"
echo "reason: $reason"
echo "commit them with: git commit -m \"golden files regenerated: $reason\" $golden tests/data/golden_v1.* tests/data/corrupt"
