#!/usr/bin/env bash
# Installs what ddplab's build and tests need, from Debian packages.
# As root it runs apt-get; as another user it prints the exact command to run.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config    # compiler (with ASan/UBSan/TSan runtimes), build
  libcjson-dev                        # profile files and trace checks
  libopenblas-dev                     # CBLAS for CPU math
  libncurses-dev                      # terminal view
  libsdl2-dev                         # window view
  libcairo2-dev libpango1.0-dev       # vector drawing and text: window, frames, charts
  libgif-dev                          # animated GIF export
  fonts-dejavu-core                   # its fonts (DejaVu Sans, Sans Mono)
  libpng-dev                          # PNG frames of the SDL view (charts: cairo)
  libmd4c-dev                         # the lesson parser (Markdown)
  openmpi-bin libopenmpi-dev          # the collective peer for benchmarks
  tmux                                # terminal UI tests
  clang libclang-rt-14-dev            # fuzzing: clang and libFuzzer's runtime (scripts/fuzz.sh)
  time                                # /usr/bin/time: the soak's peak memory (bench/soak.sh)
  xz-utils                            # the GPU bundle's archive (scripts/gpu_bundle.sh)
  groff-base                          # the man page's check (tests/test_cli_docs.c)
  python3-torch python3-numpy         # PyTorch as the reference in conformance tests
)
missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "setup: missing packages: ${missing[*]}" >&2
  echo "setup: run as root:" >&2
  echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
