#!/usr/bin/env bash
# The layer check (scripts/check_layers.py) must catch what it is there for:
# a copy of the sources with planted breaches (an include of a higher layer,
# another folder's internal header, a header cycle) must fail with each one
# named at its file and line, and the same copy without them must pass.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/scripts"
cp "$src/scripts/check_layers.py" "$src/scripts/layers.txt" "$tmp/scripts/"
for d in sim backend_cpu backend_cuda viz learn cli; do
  [ -d "$src/$d" ] && cp -r "$src/$d" "$tmp/$d"
done
python3 "$tmp/scripts/check_layers.py" "$tmp" >/dev/null || {
  echo "FAIL: the unchanged copy does not pass"; exit 1; }

printf '#include "strategy/ddp.h"\n' >"$tmp/sim/base/planted_up.c"
printf '// a strategy reaching into the trainer\n#include "train/train_internal.h"\n' \
  >"$tmp/sim/strategy/planted_internal.c"
printf '#include "base/planted_b.h"\n' >"$tmp/sim/base/planted_a.h"
printf '#include "base/planted_a.h"\n' >"$tmp/sim/base/planted_b.h"
set +e
out=$(python3 "$tmp/scripts/check_layers.py" "$tmp")
rc=$?
set -e
echo "$out"
fail=0
expect() {
  if ! grep -qF -- "$1" <<<"$out"; then echo "FAIL: no line with: $1"; fail=1; fi
}
[ "$rc" -eq 1 ] || { echo "FAIL: exit status $rc, expected 1"; fail=1; }
expect "sim/base/planted_up.c:1: includes sim/strategy/ddp.h, but sim/strategy/ is not below sim/base/"
expect "sim/strategy/planted_internal.c:2: includes sim/train/train_internal.h, another folder's internal header"
expect "include cycle: sim/base/planted_a.h -> sim/base/planted_b.h -> sim/base/planted_a.h"
expect "3 breaches"
[ "$fail" -eq 0 ] && echo "ok: every planted breach was caught"
exit "$fail"
