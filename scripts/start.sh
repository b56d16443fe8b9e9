#!/usr/bin/env bash
# Quick start: install what is needed, build, and start ddplab.
# Arguments are passed to ddplab; without any, the lessons' menu opens (on a
# terminal; elsewhere it prints the list of lessons and how to start one).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build >/dev/null
exec build/ddplab "$@"
