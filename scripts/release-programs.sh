# Sourced by the scripts that run the demo's programs (scripts/loss-check.sh,
# scripts/presence-check.sh): `release_programs TARGET=PATH...` keeps $build when it holds every
# PATH, else installs what is missing and builds the TARGETs in build/release (as scripts/demo.sh
# does) and points $build there.
release_programs() {
  local pair targets=()
  for pair in "$@"; do targets+=("${pair%%=*}"); done
  for pair in "$@"; do
    if [ ! -x "$build/${pair#*=}" ]; then
      scripts/setup.sh
      cmake --preset release >/dev/null
      cmake --build --preset release --target "${targets[@]}"
      build=build/release
      return
    fi
  done
}
