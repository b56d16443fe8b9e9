#!/bin/sh
# tests/test_soak.sh DDPLAB: the short soak: 128 ranks x 50 steps of DDP on
# a small MLP (32 ranks x 20 steps with DDPLAB_TEST_QUICK=1, as the
# sanitizer builds run it). It must end (ctest's TIMEOUT catches a
# deadlock) with exit 0 (the ASan build's leak checker makes a leak a
# failure), one metrics line per step ending at the last step with a
# finite loss, the summary, and no temporary left. bench/soak.sh is the
# full run (128 x 2000) with its figures.
set -u
exe=${1:?usage: test_soak.sh DDPLAB}
ranks=128 steps=50
[ "${DDPLAB_TEST_QUICK:-}" = 1 ] && { ranks=32; steps=20; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/ddplab-soak.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; tail -n 20 "$dir/err.txt"; exit 1; }

"$exe" run --strategy ddp -n "$ranks" --data blobs:n=8192,features=8,classes=3 \
    --model mlp:8,16,3 --batch 4 --steps "$steps" --watchdog 30 \
    --metrics "$dir/m.jsonl" >"$dir/out.txt" 2>"$dir/err.txt"
rc=$?
[ "$rc" -eq 0 ] || fail "exit code $rc"
lines=$(wc -l <"$dir/m.jsonl")
[ "$lines" -eq "$steps" ] || fail "$lines metrics lines, want $steps"
tail -n 1 "$dir/m.jsonl" | grep -q "^{\"step\":$steps," ||
    fail "the last metrics line is not step $steps"
loss=$(sed -n 's/.*final loss \([0-9.eE+-]*\).*/\1/p' "$dir/out.txt")
[ -n "$loss" ] || fail "no final loss in the summary"
awk -v l="$loss" 'BEGIN { exit !(l > 0 && l < 10) }' || fail "final loss $loss"
grep -q "done: $steps steps" "$dir/out.txt" || fail "no summary of $steps steps"
[ "$(ls -A "$dir" | grep -c tmp)" -eq 0 ] || fail "temporaries left: $(ls -A "$dir")"
echo "ok     $ranks ranks x $steps steps, final loss $loss"
echo "1 passed, 0 failed"
