#!/usr/bin/env bash
# bench/calibration_check.sh: does the cost model, fed with this machine's
# own calibrated profile, predict the time a numeric training step really
# takes here? The simulated step time of `ddplab run` under the profile that
# `ddplab bench --calibrate` wrote is compared with the measured wall time
# of the same steps.
#
# Usage: bench/calibration_check.sh [BUILD_DIR]     (default ./build)
# It builds and installs nothing: BUILD_DIR must hold a built ddplab. Each of
# REPEAT rounds
#   1. calibrates: ddplab bench -n 2 -a ring -b 64K -e 16M --calibrate FILE
#      (the links: a least-squares fit of the in-place ring all_reduce times;
#      the device: one rank's fp32 matmul FLOP/s through the cpu backend's
#      kernels, its memory bandwidth and per-op cost, with both ranks
#      measuring at once; see cli/bench/bench_calibrate.c and cli/bench/bench_device.c);
#   2. trains: ddplab run --strategy ddp -n 2 --model mlp:784,1024,1024,10
#      --data blobs:n=4096,features=784,classes=10 --batch 64 --steps STEPS
#      --optimizer sgd --lr 0.01 --profile FILE --metrics M.jsonl
#   3. compares, over the steps after the first WARMUP: simulated time per
#      step (the difference of consecutive sim_s in --metrics: rank 0's
#      compute stream, which every collective of the step joins) with the
#      measured time per step (wall_s), both as medians (a step that another
#      process on the machine interrupted does not count).
# The ratio is simulated / measured. What the model should say for 2 rank
# threads on 2 cores: each rank computes in parallel on its own core, at the
# rate calibration measured with both cores busy; its collectives run in
# its own thread (the cpu backend runs them inline), so a collective holds
# the compute stream for its whole time (the calibrated device says
# coll_on_compute = 1) and is priced by the calibrated link.
#
# Target, printed as PASS or FAIL: the median round's ratio within 25% of 1.
# It exits 0 whatever the figures are (a benchmark, not a test) and 1 only
# when something failed to run. Run it on a quiet machine: the calibration
# and the run must see the same machine.
#
# Environment: REPEAT (default 3) rounds; STEPS (default 60) steps of each
# run; WARMUP (default 10) steps left out; LIMIT_S (default 300) seconds any
# one program may run.
set -euo pipefail

# shellcheck disable=SC2034
BENCH_NAME=calibration_check
WARMUP=${WARMUP:-10}
# shellcheck source=bench/common.sh disable=SC1091
. "$(dirname "$0")/common.sh" "$@"
STEPS=${STEPS:-60}
LIMIT_S=${LIMIT_S:-300}

bench_find_ddplab
[ "$STEPS" -gt $((WARMUP + 2)) ] || die "STEPS must exceed WARMUP + 2"
bench_scratch

host_line
echo "# model mlp:784,1024,1024,10, batch 64 per rank, ddp on 2 ranks, sgd; $STEPS steps,"
echo "# the first $WARMUP left out; $REPEAT rounds of calibrate + train"
printf '%-6s %12s %10s %9s %12s %12s %8s\n' "round" "matmul" "memory" "link" "measured" \
    "simulated" "ratio"
printf '%-6s %12s %10s %9s %12s %12s %8s\n' "" "(GFLOP/s)" "(GB/s)" "(GB/s)" "(ms/step)" \
    "(ms/step)" "sim/meas"

ratios=()
for round in $(seq "$REPEAT"); do
    prof="$TMP/calibrated-$round.json"
    metrics="$TMP/metrics-$round.jsonl"
    timeout "$LIMIT_S" "$DDPLAB" bench -n 2 -a ring -b 64K -e 16M --calibrate "$prof" \
        >"$TMP/bench-$round.txt" 2>&1 || {
        cat "$TMP/bench-$round.txt" >&2
        die "round $round: ddplab bench --calibrate failed"
    }
    timeout "$LIMIT_S" "$DDPLAB" run --strategy ddp -n 2 --model mlp:784,1024,1024,10 \
        --data blobs:n=4096,features=784,classes=10 --batch 64 --steps "$STEPS" \
        --optimizer sgd --lr 0.01 --profile "$prof" --metrics "$metrics" \
        >"$TMP/run-$round.txt" 2>&1 || {
        cat "$TMP/run-$round.txt" >&2
        die "round $round: ddplab run failed"
    }
    line=$("$PY" - "$prof" "$metrics" "$WARMUP" <<'PYEOF'
import json, statistics, sys
prof = json.load(open(sys.argv[1]))
rows = [json.loads(l) for l in open(sys.argv[2]) if l.startswith('{"step"')]
warm = int(sys.argv[3])
wall = [r["wall_s"] for r in rows][warm:]
sim = [b["sim_s"] - a["sim_s"] for a, b in zip(rows, rows[1:])][warm - 1:]
dev, link = prof["device"], prof["intra"]
w, s = statistics.median(wall), statistics.median(sim)
print("%.1f %.1f %.2f %.3f %.3f %.3f" % (dev["fp32_TFLOPS"] * 1e3, dev["mem_bw_GBps"],
                                         link["bw_GBps"], w * 1e3, s * 1e3, s / w))
PYEOF
    )
    read -r gf gb lk meas simu ratio <<<"$line"
    printf '%-6s %12s %10s %9s %12s %12s %8s\n' "$round" "$gf" "$gb" "$lk" "$meas" "$simu" "$ratio"
    ratios+=("$ratio")
done

"$PY" - "${ratios[@]}" <<'PYEOF'
import statistics, sys
r = sorted(float(x) for x in sys.argv[1:])
m = statistics.median(r)
ok = abs(m - 1) <= 0.25
print("# simulated / measured time per step: median %.3f over %d rounds (%.3f .. %.3f)"
      % (m, len(r), r[0], r[-1]))
print("# target: within 25%% of the measured time: %s" % ("PASS" if ok else "FAIL"))
PYEOF
