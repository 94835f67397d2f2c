#!/usr/bin/env bash
# Installs what is missing, builds, and runs the demo. Until the networked demo game lands
# (demo_server/demo_client), the demo is the hello_world example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target hello_world
./build/release/examples/hello_world
