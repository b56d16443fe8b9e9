#!/bin/sh
# tests/test_scale_max.sh DDPLAB: the largest world `ddplab run` accepts
# (the top of --ranks' range, read from the program's own refusal of one
# more) must train. Thousands of rank threads then call BLAS at once, more
# than OpenBLAS has work buffers for; the CPU backend's gate (cpu_math.c)
# keeps them within it. Five FSDP runs of a tiny MLP, since a crash there
# came in some runs only, then one DDP run: each must exit 0 with a finite,
# plausible final loss, print nothing from OpenBLAS, and the FSDP runs must
# agree to the last printed digit. Skipped (77) under DDPLAB_TEST_QUICK=1:
# a sanitizer build at that scale takes far longer than the suite should;
# test_kernels_ranks crowds the gate there instead.
set -u
exe=${1:?usage: test_scale_max.sh DDPLAB}
if [ "${DDPLAB_TEST_QUICK:-}" = 1 ]; then
    echo "skipped: DDPLAB_TEST_QUICK=1"
    exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/ddplab-scale.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; tail -n 20 "$dir/out.txt" "$dir/err.txt"; exit 1; }

max=$("$exe" run -n 1000000 --steps 1 2>&1 |
    sed -n 's/.*--ranks:.*from 1 to \([0-9][0-9]*\).*/\1/p')
[ -n "$max" ] || fail "no range in the refusal of -n 1000000"
[ "$max" -ge 1024 ] || fail "--ranks tops out at $max"

# run NAME ARGS...: one run; prints its final loss
run() {
    name=$1
    shift
    "$exe" run -n "$max" --watchdog 30 --steps 2 "$@" >"$dir/out.txt" 2>"$dir/err.txt"
    rc=$?
    [ "$rc" -eq 0 ] || fail "$name: exit code $rc"
    ! grep -qi openblas "$dir/out.txt" "$dir/err.txt" || fail "$name: OpenBLAS complained"
    grep -q "done: 2 steps" "$dir/out.txt" || fail "$name: no summary of 2 steps"
    loss=$(sed -n 's/.*final loss \([0-9.eE+-]*\).*/\1/p' "$dir/out.txt")
    [ -n "$loss" ] || fail "$name: no final loss"
    awk -v l="$loss" 'BEGIN { exit !(l > 0 && l < 10) }' || fail "$name: final loss $loss"
    echo "$loss"
}

first=
for i in 1 2 3 4 5; do
    loss=$(run "fsdp run $i" --strategy fsdp --data blobs:n=8192 --batch 2 \
        --model mlp:16,8,4) || { echo "$loss"; exit 1; }
    [ -z "$first" ] || [ "$loss" = "$first" ] ||
        fail "fsdp run $i: final loss $loss, run 1 had $first"
    first=$loss
    echo "ok     fsdp, $max ranks, run $i: final loss $loss"
done
loss=$(run ddp --strategy ddp --data blobs:n=8192,features=4,classes=2 --batch 2 \
    --model mlp:4,4,2) || { echo "$loss"; exit 1; }
echo "ok     ddp, $max ranks: final loss $loss"
echo "2 passed, 0 failed"
