#!/usr/bin/env bash
# tests/test_cuda_nogpu.sh DDPLAB: on a machine without a GPU, `ddplab run
# --backend cuda` stops at once with exit 4 and one line saying why and what
# runs instead; with a GPU it is skipped (exit 77). The cuda-only options are
# refused on the cpu backend (exit 2) everywhere.
set -u
ddplab=$1
fail=0
expect() { # code, needle, command...
  local code=$1 needle=$2; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ $rc -ne "$code" ] || ! grep -qF -- "$needle" <<<"$out"; then
    echo "FAILED: $* -> exit $rc (want $code), output: $out"
    fail=1
  fi
}
expect 2 "--tf32: applies to --backend cuda only" "$ddplab" run --tf32 --steps 1
expect 2 "--coll-impl: applies to --backend cuda only" "$ddplab" run --coll-impl nccl --steps 1
expect 2 "is not a collective implementation; allowed: auto, nccl, device" \
  "$ddplab" run --backend cuda --coll-impl gloo --steps 1
[ $fail -ne 0 ] && exit 1
out=$("$ddplab" run --backend cuda --steps 1 2>&1); rc=$?
if [ $rc -eq 0 ]; then
  echo "SKIP: a GPU is present: $out" | tail -1
  exit 77
fi
expect 4 "no CUDA device" "$ddplab" run --backend cuda --steps 1
expect 4 "--backend cpu runs the same configuration" "$ddplab" run --backend cuda --steps 1
[ "$(wc -l <<<"$out")" -eq 1 ] || { echo "FAILED: more than one line: $out"; fail=1; }
exit $fail
