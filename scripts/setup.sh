#!/usr/bin/env bash
# Installs the Debian packages retcon needs to build, test and benchmark — only those missing.
# Safe to run repeatedly; needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(
  g++ cmake make pkg-config git        # toolchain
  catch2 libbenchmark-dev tmux         # tests (tmux drives the terminal client), benchmarks
  libenet-dev libxxhash-dev libzstd-dev # network, hashing, compression
  libsodium-dev                        # reconnect tokens (system CSPRNG, constant-time compare)
  libcli11-dev                         # argument parsing for the retcon tool
  libcpp-httplib-dev nlohmann-json3-dev # the match host's metrics page and orchestrators (HTTP, JSON)
  python3-yaml                         # the deployment manifests' check against the code
  mono-mcs mono-runtime                # capi:csharp: the C API through P/Invoke (C# compiler, runtime)
  libsdl2-dev libsdl2-ttf-dev fonts-dejavu-core # demo_client --window (SDL2, text, its font)
  xvfb xauth                           # the window's tests draw on a virtual display
)

# --fuzz / --clang: also clang++ and its libFuzzer/sanitizer runtimes (fuzzing, cross-compiler checks)
# --cross: the cross-architecture determinism matrix's compilers and emulator
# --lint: clang-format and clang-tidy 14 (scripts/lint.sh)
# --ccache: ccache, which .ci/run puts in front of the compilers (docs/testing.md, "Build time")
# Several options install in one go (.ci/run asks for all of them at once: one apt-get update).
for arg in "$@"; do
  case "$arg" in
    --fuzz|--clang) packages+=(clang libclang-rt-14-dev) ;;
    # the cross-architecture matrix (scripts/determinism-matrix.sh): aarch64 and i686 cross
    # compilers, qemu to run aarch64 (and x86-64-v3 on a CPU without FMA), clang for its rows
    --cross) packages+=(clang g++-aarch64-linux-gnu g++-i686-linux-gnu qemu-user) ;;
    --lint) packages+=(clang-format-14 clang-tidy-14) ;;
    --ccache) packages+=(ccache) ;;
    # --screenshots: ImageMagick, which turns the window's BMP captures into the README's PNGs
    --screenshots) packages+=(imagemagick) ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
