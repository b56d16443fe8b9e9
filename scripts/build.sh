#!/usr/bin/env bash
# Configures and builds ddplab into a build directory.
#   scripts/build.sh [BUILD_DIR] [extra cmake arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
cmake -S . -B "$dir" -DDDPLAB_WERROR=ON "$@" >"$dir.configure.log" 2>&1 || {
  cat "$dir.configure.log" >&2
  exit 1
}
# The status block of optional parts, for the reader.
sed -n '/ddplab optional parts/,/^--/p' "$dir.configure.log" | grep -v '^--' || true
cmake --build "$dir" -j"$(nproc)"
