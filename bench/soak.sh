#!/usr/bin/env bash
# bench/soak.sh: the soak run: many ranks for many steps of DDP on a small
# MLP, watched for a deadlock (a time limit), for leaks (the process's peak
# resident memory, and the ASan build's leak checker when BUILD_DIR is one)
# and for output it did not finish, with its wall time, peak RSS and steps
# per second.
#
# Usage: bench/soak.sh [BUILD_DIR]     (default ./build)
# It builds and installs nothing: BUILD_DIR must hold a built ddplab;
# /usr/bin/time (Debian package `time`, which scripts/setup.sh installs)
# measures the peak RSS. It runs, under `timeout` (LIMIT_S, default 1800 s)
#   ddplab run --strategy ddp -n RANKS --data blobs:n=8192,features=8,classes=3
#              --model mlp:8,16,3 --batch 4 --steps STEPS --watchdog 30
#              --metrics FILE
# and checks that it exited 0, that the metrics file has one line per step
# and ends at step STEPS, and that no temporary is left. Environment: RANKS
# (default 128), STEPS (default 2000), LIMIT_S. A measurement, not a test:
# exit 0 when the run succeeded, 1 when it failed or hung (the figures
# are printed either way). tests/test_soak.sh is the short variant ctest
# runs.
set -euo pipefail
BUILD=${1:-./build}
RANKS=${RANKS:-128}
STEPS=${STEPS:-2000}
LIMIT_S=${LIMIT_S:-1800}
die() { echo "soak: $*" >&2; exit 1; }

DDPLAB=""
for f in "$BUILD/ddplab" "$BUILD/cli/ddplab"; do
    [ -x "$f" ] && { DDPLAB=$f; break; }
done
[ -n "$DDPLAB" ] || die "no ddplab program in $BUILD (build first: scripts/build.sh $BUILD)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

args=(run --strategy ddp -n "$RANKS" --data blobs:n=8192,features=8,classes=3
      --model mlp:8,16,3 --batch 4 --steps "$STEPS" --watchdog 30
      --metrics "$TMP/out/m.jsonl")
mkdir "$TMP/out"
echo "soak: $RANKS ranks x $STEPS steps of DDP on mlp:8,16,3, $(nproc) cores"
echo "  ddplab ${args[*]}"

timer=()
if [ -x /usr/bin/time ]; then
    timer=(/usr/bin/time -v -o "$TMP/time.txt")
else
    echo "  (no /usr/bin/time: peak RSS not measured; apt-get install time)"
fi
start=$(date +%s%N)
set +e
timeout "$LIMIT_S" "${timer[@]}" "$DDPLAB" "${args[@]}" >"$TMP/stdout.txt" 2>"$TMP/stderr.txt"
rc=$?
set -e
end=$(date +%s%N)
wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')

ok=1
if [ "$rc" -eq 124 ]; then
    echo "  FAIL: no end after $LIMIT_S s (a deadlock?)"
    ok=0
elif [ "$rc" -ne 0 ]; then
    echo "  FAIL: exit code $rc"
    tail -n 5 "$TMP/stderr.txt" | sed 's/^/    /'
    ok=0
fi
lines=$(wc -l <"$TMP/out/m.jsonl" 2>/dev/null || echo 0)
last=$(tail -n 1 "$TMP/out/m.jsonl" 2>/dev/null | sed -n 's/.*"step":\([0-9]*\).*/\1/p')
if [ "$ok" = 1 ] && { [ "$lines" -ne "$STEPS" ] || [ "${last:-0}" -ne "$STEPS" ]; }; then
    echo "  FAIL: the metrics file has $lines lines ending at step ${last:-?}"
    ok=0
fi
left=$(find "$TMP/out" -name '*.tmp*' | wc -l)
[ "$left" -eq 0 ] || { echo "  FAIL: $left temporaries left"; ok=0; }

rss="n/a"
if [ -s "$TMP/time.txt" ]; then
    kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$TMP/time.txt")
    rss=$(awk -v k="$kb" 'BEGIN { printf "%.1f MiB", k / 1024 }')
    vcs=$(sed -n 's/.*Voluntary context switches: //p' "$TMP/time.txt")
    ics=$(sed -n 's/.*Involuntary context switches: //p' "$TMP/time.txt")
    cpu=$(sed -n 's/.*Percent of CPU this job got: //p' "$TMP/time.txt")
fi
sps=$(awk -v s="$STEPS" -v w="$wall" 'BEGIN { printf "%.0f", s / w }')
loss=$(sed -n 's/.*final loss \([0-9.eE+-]*\).*/\1/p' "$TMP/stdout.txt" | tail -n 1)
echo "  wall time     $wall s"
echo "  peak RSS      $rss"
rank_steps=$(awk -v s="$sps" -v r="$RANKS" 'BEGIN { printf "%.0f", s * r }')
echo "  steps/s       $sps  ($rank_steps rank-steps/s)"
[ -n "${cpu:-}" ] && echo "  CPU           $cpu; context switches: $vcs voluntary, $ics involuntary"
echo "  final loss    ${loss:-?}"
if [ "$ok" = 1 ]; then
    echo "soak: PASS ($lines steps, no temporary left)"
    exit 0
fi
echo "soak: FAIL"
exit 1
