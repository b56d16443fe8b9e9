#!/usr/bin/env bash
# bench/fsdp_vs_ddp.sh: wall time per training step of `ddplab run --strategy
# fsdp` (FULL_SHARD, SHARD_GRAD_OP) and `--strategy zero1` against `ddplab
# run --strategy ddp` on the same run: R = 4 ranks, numeric mode, the same
# model, data, batches, optimizer and steps; one machine, reported as ratios.
#
# Usage: bench/fsdp_vs_ddp.sh [BUILD_DIR]     (default ./build)
# It builds and installs nothing: BUILD_DIR must hold a built ddplab. For
# each model and strategy it runs
#   ddplab run --strategy S -n 4 --model M --data D --batch B --steps N
#              --optimizer sgd --lr 0.01 --metrics FILE
# with S in ddp, fsdp (--sharding full_shard), fsdp --sharding shard_grad_op
# and zero1, and
#   mlp:784,1024,1024,10 on blobs:n=4096,features=784,classes=10, batch 64
#   gpt:layers=4,embd=128,heads=4,ctx=64,vocab=16 (MiniGPT, 0.8 M parameters)
#       on arith:lines=2000,digits=3, batch 8
# One thread per rank (OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1);
# the 4 rank threads share the machine's cores. Time per step is the median
# of rank 0's per-step wall_s in --metrics after the first WARMUP steps (a
# step that another process on the machine interrupted does not count). The
# strategies take turns within each of REPEAT rounds (so a change in the
# machine's load falls on all of them) and the best round of each is kept.
# Both sides log the loss averaged over the ranks (one scalar all_reduce per
# step each). Every program runs under `timeout`. It exits 0 whatever the
# figures are (a benchmark, not a test) and 1 only when something failed to
# run.
#
# Target, printed as PASS or FAIL:
#   FULL_SHARD takes <= 1.5 x DDP's time per step, on both models. Numeric
#   mode computes from a full-size copy of the parameters, so FSDP's extra
#   work is memory traffic: each unit's all-gather, copying it into the
#   layers' buffer, overwriting it with NaN when it is freed (twice per step
#   under FULL_SHARD, once under SHARD_GRAD_OP), and packing, pre-dividing
#   and reduce-scattering its gradient.
# SHARD_GRAD_OP and ZeRO-1 are reported against DDP without a target.
#
# Environment: REPEAT (default 3) rounds; WARMUP (default 10) steps left
# out; STEPS_MLP (default 60) and STEPS_GPT (default 40) steps of each run;
# LIMIT_S (default 300) seconds any one program may run.
set -euo pipefail

# The shared set-up (build directory, REPEAT, WARMUP, the interpreter, and
# the helpers die, host_line, bench_find_ddplab, bench_scratch).
# shellcheck disable=SC2034
BENCH_NAME=fsdp_vs_ddp
WARMUP=${WARMUP:-10}
# shellcheck source=bench/common.sh disable=SC1091
. "$(dirname "$0")/common.sh" "$@"
STEPS_MLP=${STEPS_MLP:-60}
STEPS_GPT=${STEPS_GPT:-40}
LIMIT_S=${LIMIT_S:-300}
RANKS=4

bench_find_ddplab
if [ "$STEPS_MLP" -le "$WARMUP" ] || [ "$STEPS_GPT" -le "$WARMUP" ]; then
    die "STEPS_MLP and STEPS_GPT must exceed WARMUP"
fi
bench_scratch

MLP=(--model "mlp:784,1024,1024,10" --data "blobs:n=4096,features=784,classes=10" --batch 64)
GPT=(--model "gpt:layers=4,embd=128,heads=4,ctx=64,vocab=16" --data "arith:lines=2000,digits=3"
    --batch 8)
STRATEGIES=("ddp" "fsdp --sharding full_shard" "fsdp --sharding shard_grad_op" "zero1")
LABELS=("ddp" "full_shard" "shard_grad_op" "zero1")

step_ms() { # step_ms FILE: median wall ms per step of a --metrics file after WARMUP steps
    "$PY" - "$1" "$WARMUP" <<'PYEOF'
import json, statistics, sys
walls = [json.loads(line)["wall_s"] for line in open(sys.argv[1])]
print("%.3f" % (1000 * statistics.median(walls[int(sys.argv[2]):])))
PYEOF
}

run_ms() { # run_ms STRATEGY STEPS MODEL-ARGS...: ms per step of one run
    local strategy=$1 steps=$2
    shift 2
    # shellcheck disable=SC2086  # the strategy string is words on purpose
    timeout -k 5 "$LIMIT_S" "$DDPLAB" run --strategy $strategy -n "$RANKS" "$@" \
        --steps "$steps" --optimizer sgd --lr 0.01 --metrics "$TMP/m.jsonl" \
        --progress lines --log-every 1000000000 >"$TMP/ddplab.out" 2>"$TMP/ddplab.err" ||
        { cat "$TMP/ddplab.err" >&2; die "ddplab run --strategy $strategy $* failed"; }
    step_ms "$TMP/m.jsonl"
}

# bench_model NAME STEPS MODEL-ARGS...: one table row per strategy
bench_model() {
    local name=$1 steps=$2 i round ms
    shift 2
    local best=()
    for i in "${!STRATEGIES[@]}"; do best[i]=""; done
    for round in $(seq "$REPEAT"); do
        for i in "${!STRATEGIES[@]}"; do
            ms=$(run_ms "${STRATEGIES[$i]}" "$steps" "$@")
            if [ -z "${best[$i]}" ]; then
                best[i]=$ms
            else
                best[i]=$("$PY" -c "print(min($ms, ${best[$i]}))")
            fi
        done
        : "$round"
    done
    local ddp=${best[0]} ratio target verdict
    for i in 1 2 3; do
        ratio=$("$PY" -c "print('%.2f' % (${best[$i]} / $ddp))")
        target="-" verdict=""
        if [ "${LABELS[$i]}" = full_shard ]; then
            target="<= 1.5x"
            verdict=$("$PY" -c "print('PASS' if ${best[$i]} / $ddp <= 1.5 else 'FAIL')")
        fi
        printf '%-34s %-14s %10s %10s %7sx %8s %s\n' "$name" "${LABELS[$i]}" "$ddp" \
            "${best[$i]}" "$ratio" "$target" "$verdict"
    done
}

printf '# ddplab run --strategy fsdp / zero1 vs --strategy ddp, %s ranks, best of %s rounds\n' \
    "$RANKS" "$REPEAT"
host_line
printf '# one thread per rank; the %s rank threads share those %s cores; load average before\n' \
    "$RANKS" "$(getconf _NPROCESSORS_ONLN)"
printf '# the run: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %-14s %10s %10s %8s %8s %s\n' "ms per step (rank 0, wall)" strategy ddp \
    strategy ratio target result
bench_model "mlp:784,1024,1024,10, 4 x 64" "$STEPS_MLP" "${MLP[@]}"
bench_model "MiniGPT 4x128 ctx 64, 4 x 8" "$STEPS_GPT" "${GPT[@]}"
printf '# load average after the run: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
exit 0
