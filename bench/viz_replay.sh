#!/usr/bin/env bash
# bench/viz_replay.sh: how fast a recorded trace loads for `ddplab replay`.
# Records a real run of about a million trace events as a .ddptrace file,
# then loads it with viz_trace_load (bench/viz_replay_load, best of REPEAT)
# and prints the file's size, the load time, events per second and the
# loader's peak RSS, against the targets (< 2 s and < 500 MB for 1M events).
#
# Usage: bench/viz_replay.sh [BUILD_DIR]     (default ./build)
# It builds and installs nothing. The run is
#   ddplab run --strategy ddp -n 8 --steps S --trace FILE.ddptrace
# with S chosen from two short probe runs so that the trace holds about
# EVENTS events. Environment: EVENTS (default 1000000), REPEAT (default 3),
# JSONL=1 also records the same run as JSON lines and loads that (a file of
# about 450 bytes per event). It exits 0 whatever the figures are, and 1
# only when something failed to run.
set -euo pipefail
BENCH_NAME=viz_replay
BUILD=${1:-./build}
EVENTS=${EVENTS:-1000000}
REPEAT=${REPEAT:-3}

die() { echo "$BENCH_NAME: $*" >&2; exit 1; }
[ -d "$BUILD" ] || die "no build directory $BUILD (build first: scripts/build.sh $BUILD)"
DDPLAB=""
for f in "$BUILD/ddplab" "$BUILD/cli/ddplab"; do
    [ -x "$f" ] && { DDPLAB=$f; break; }
done
[ -n "$DDPLAB" ] || die "no ddplab program in $BUILD"
LOADER=$BUILD/bench/viz_replay_load
[ -x "$LOADER" ] || die "no $LOADER (build the bench/ targets)"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# record STEPS FILE: runs the training and prints the trace's event count.
record() {
    "$DDPLAB" run --strategy ddp -n 8 --steps "$1" --log-every 1000000 --trace "$2" \
        >"$TMP/run.out" 2>"$TMP/run.err" || { cat "$TMP/run.err" >&2; die "ddplab run failed"; }
    sed -n 's/^trace: .* (\([0-9]*\) events.*/\1/p' "$TMP/run.out"
}

a=$(record 10 "$TMP/probe.ddptrace")
b=$(record 20 "$TMP/probe.ddptrace")
[ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ] || die "cannot read the probe runs' event counts"
per_step=$(( (b - a) / 10 ))
steps=$(( (EVENTS - (a - 10 * per_step) + per_step - 1) / per_step ))
[ "$steps" -ge 1 ] || steps=1

t0=$(date +%s.%N)
events=$(record "$steps" "$TMP/replay.ddptrace")
t1=$(date +%s.%N)
echo "recorded: ddplab run --strategy ddp -n 8 --steps $steps: $events events" \
     "($per_step per step) in $(echo "$t1 - $t0" | bc -l | xargs printf '%.2f') s"

report() { # report LABEL FILE: loads FILE and prints the figures
    local line
    line=$("$LOADER" "$2" "$REPEAT") || die "loading $2 failed"
    # file=... bytes=B events=N ranks=R best_s=T events_per_s=E max_rss_mb=M
    eval "$(echo "$line" | tr ' ' '\n' | grep -E '^(bytes|events|best_s|events_per_s|max_rss_mb)=')"
    # shellcheck disable=SC2154 # set by the eval above
    printf '%-10s %12s bytes  %9s events  load %.3f s (%.1f M events/s)  peak RSS %.1f MB\n' \
        "$1" "$bytes" "$events" "$best_s" "$(echo "$events_per_s / 1000000" | bc -l)" "$max_rss_mb"
    LOAD_S=$best_s
    RSS_MB=$max_rss_mb
}

report ddptrace "$TMP/replay.ddptrace"
verdict() { if [ "$(echo "$1" | bc -l)" = 1 ]; then echo PASS; else echo FAIL; fi; }
echo "target: 1M events load in < 2 s: $(verdict "$LOAD_S < 2 * $events / 1000000")," \
     "peak RSS < 500 MB: $(verdict "$RSS_MB < 500")"

if [ "${JSONL:-0}" = 1 ]; then
    record "$steps" "$TMP/replay.jsonl" >/dev/null
    report jsonl "$TMP/replay.jsonl"
fi
