#!/usr/bin/env bash
# Quick start: install what is needed, build, and start ddplab.
# Arguments are passed to ddplab.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build >/dev/null
exec build/ddplab "$@"
