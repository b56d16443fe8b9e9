#!/usr/bin/env bash
# bench/ddp_vs_torch.sh: training steps per second of `ddplab run --strategy
# ddp` against PyTorch's DistributedDataParallel on the gloo backend (R real
# processes on this machine, loopback), and the overhead of simulating R
# ranks against single-process training on the combined batch; one run,
# one machine, reported as ratios.
#
# Usage: bench/ddp_vs_torch.sh [BUILD_DIR]     (default ./build)
# It builds and installs nothing: BUILD_DIR must hold a built ddplab, and
# /usr/bin/python3 must import torch (python3-torch; DDPLAB_PYTHON overrides
# the interpreter). For each configuration it runs
#   ddplab run --strategy ddp -n R --model mlp:W
#              --data blobs:n=4096,features=D,classes=C --batch B --steps N
#              --optimizer sgd --lr 0.01 --loss-log rank0 --metrics FILE
#   python3 (the script below), R processes: nn.Sequential of the same
#              Linear and ReLU layers wrapped in DistributedDataParallel
#              (torch's defaults: 25 MB buckets), torch.optim.SGD(lr=0.01),
#              cross-entropy, each rank drawing batches of B from its share
#              of a random permutation of 4096 in-memory samples,
#              zero_grad / forward / loss.item() / backward / step
# Both sides: OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1, and
# torch.set_num_threads(1) in every torch process. ddplab's ranks are
# threads of one process, torch's are processes; on either side the R ranks
# share the machine's cores (the header prints how many). The first WARMUP
# steps are left out on both sides (ddplab: from the per-step wall_s of rank
# 0's --metrics; torch: rank 0's time.perf_counter from a barrier after
# step WARMUP to the end); steps per second is (N - WARMUP) / time. Every
# program runs under `timeout`, so nothing can hang the benchmark. It exits
# 0 whatever the figures are (a benchmark, not a test) and 1 only when
# something failed to run.
#
# Targets, each printed as PASS or FAIL:
#   mlp:32,64,64,10       batch 32/rank, 4 ranks   ddplab >= 10 x torch DDP
#   mlp:784,1024,1024,10  batch 64/rank, 2 ranks   ddplab >= 1.0 x torch DDP
#   mlp:784,1024,1024,10  ddplab ddp on R = 2 and 4 ranks (batch 64/rank)
#                         against ddplab single on batch R x 64: a DDP step
#                         takes at most 1.25 x the single step's time
#
# Environment: REPEAT (default 3) runs of each side, the best kept;
# STEPS_SMALL (default 3000 for ddplab, a tenth of it for torch, whose
# steps are slower), STEPS_BIG (default 100); WARMUP (default 20);
# LIMIT_S (default 300) seconds any one program may run.
set -euo pipefail

# The shared set-up (build directory, REPEAT, WARMUP, the interpreter, and
# the helpers die, best, metrics_rate); BENCH_NAME prefixes its messages.
# shellcheck disable=SC2034
BENCH_NAME=ddp_vs_torch
# shellcheck source=bench/common.sh disable=SC1091
. "$(dirname "$0")/common.sh" "$@"
STEPS_SMALL=${STEPS_SMALL:-3000}
STEPS_BIG=${STEPS_BIG:-100}
LIMIT_S=${LIMIT_S:-300}

bench_find_ddplab
bench_need_torch "import torch.distributed as d; assert d.is_gloo_available()" \
    "torch with gloo"
if [ "$STEPS_SMALL" -le $((10 * WARMUP)) ] || [ "$STEPS_BIG" -le "$WARMUP" ]; then
    die "STEPS_SMALL must exceed 10 x WARMUP and STEPS_BIG must exceed WARMUP"
fi
bench_scratch
export GLOO_SOCKET_IFNAME=lo

cat >"$TMP/torch_ddp.py" <<'EOF'
# The PyTorch side, one rank: DDP on gloo around the MLP, plainly.
import datetime
import sys

import torch
import torch.distributed as dist
import torch.nn as nn

from mlp_loop import mlp, timed_loop

rank, world, store = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
widths = [int(w) for w in sys.argv[4].split(",")]
batch, steps, warmup = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
torch.set_num_threads(1)
dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=world,
                        timeout=datetime.timedelta(seconds=120))
torch.manual_seed(0)
model = nn.parallel.DistributedDataParallel(mlp(widths))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
n = 4096
x_all = torch.randn(n, widths[0])
y_all = torch.randint(0, widths[-1], (n,))


def batches():
    epoch = 0
    while True:
        g = torch.Generator().manual_seed(epoch)
        share = torch.randperm(n, generator=g)[rank::world]  # this rank's samples
        for b in range(0, len(share), batch):
            yield share[b:b + batch]
        epoch += 1


elapsed = timed_loop(model, opt, x_all, y_all, batches(), steps, warmup, dist.barrier)
dist.barrier()
dist.destroy_process_group()
if rank == 0:
    print("%.3f" % ((steps - warmup) / elapsed))
EOF

# The rate functions run through `best` (shellcheck cannot see that).
# shellcheck disable=SC2317
ddplab_rate() { # ddplab_rate RANKS WIDTHS BATCH STEPS -> steps/s after the warmup
    local ranks=$1 widths=$2 batch=$3 steps=$4 d c strategy
    d=${widths%%,*}
    c=${widths##*,}
    strategy=(--strategy ddp -n "$ranks" --loss-log rank0)
    [ "$ranks" = 1 ] && strategy=(--strategy single)
    timeout -k 5 "$LIMIT_S" "$DDPLAB" run "${strategy[@]}" --model "mlp:$widths" \
        --data "blobs:n=4096,features=$d,classes=$c" --batch "$batch" --steps "$steps" \
        --optimizer sgd --lr 0.01 --metrics "$TMP/m.jsonl" --progress lines \
        --log-every 1000000000 >"$TMP/ddplab.out" 2>"$TMP/ddplab.err" ||
        { cat "$TMP/ddplab.err" >&2; die "ddplab run (R=$ranks mlp:$widths) failed"; }
    metrics_rate "$TMP/m.jsonl"
}

# shellcheck disable=SC2317
torch_rate() { # torch_rate RANKS WIDTHS BATCH STEPS -> rank 0's steps/s after the warmup
    local ranks=$1 store="$TMP/store.$RANDOM$RANDOM" pids=() r failed=0
    for r in $(seq 0 $((ranks - 1))); do
        timeout -k 5 "$LIMIT_S" "$PY" "$TMP/torch_ddp.py" "$r" "$ranks" "$store" "$2" "$3" "$4" \
            "$WARMUP" >"$TMP/torch.$r.out" 2>"$TMP/torch.$r.err" &
        pids+=($!)
    done
    for r in "${!pids[@]}"; do
        wait "${pids[$r]}" || { failed=1; cat "$TMP/torch.$r.err" >&2; }
    done
    rm -f "$store"
    [ "$failed" = 0 ] || die "torch DDP (R=$ranks mlp:$2) failed"
    cat "$TMP/torch.0.out"
}

row() { # row NAME OURS THEIRS TARGET: ratio ours/theirs must reach TARGET
    local ratio verdict
    ratio=$("$PY" -c "print('%.2f' % ($2 / $3))")
    verdict=$("$PY" -c "print('PASS' if $2 / $3 >= $4 else 'FAIL')")
    printf '%-44s %13s %13s %7sx %8s %s\n' "$1" "$2" "$3" "$ratio" ">= ${4}x" "$verdict"
}

printf '# ddplab run --strategy ddp vs PyTorch %s DistributedDataParallel (gloo), best of %s runs\n' \
    "$(torch_version)" "$REPEAT"
host_line
printf '# one thread per rank on both sides; the R ranks (ddplab: threads, torch: processes)\n'
printf '# share those %s cores; load average before the run: %s\n' "$(getconf _NPROCESSORS_ONLN)" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-44s %13s %13s %8s %8s %s\n' "steps per second" ddplab torch ratio target result
small_torch=$((STEPS_SMALL / 10))
ours=$(best ddplab_rate 4 32,64,64,10 32 "$STEPS_SMALL")
theirs=$(best torch_rate 4 32,64,64,10 32 "$small_torch")
row "mlp:32,64,64,10, 4 ranks x batch 32" "$ours" "$theirs" 10
ours=$(best ddplab_rate 2 784,1024,1024,10 64 "$STEPS_BIG")
theirs=$(best torch_rate 2 784,1024,1024,10 64 "$STEPS_BIG")
row "mlp:784,1024,1024,10, 2 ranks x batch 64" "$ours" "$theirs" 1.0
ddp2=$ours

echo
printf '%-44s %13s %13s %8s %8s %s\n' "overhead of simulating (steps per second)" "ddplab ddp" \
    "ddplab single" "time" target result
for ranks in 2 4; do
    if [ "$ranks" = 2 ]; then
        ddp=$ddp2
    else
        ddp=$(best ddplab_rate "$ranks" 784,1024,1024,10 64 "$STEPS_BIG")
    fi
    single=$(best ddplab_rate 1 784,1024,1024,10 $((ranks * 64)) "$STEPS_BIG")
    # time of a DDP step over time of a single step = single rate / ddp rate
    t=$("$PY" -c "print('%.2f' % ($single / $ddp))")
    verdict=$("$PY" -c "print('PASS' if $single / $ddp <= 1.25 else 'FAIL')")
    printf '%-44s %13s %13s %7sx %8s %s\n' \
        "mlp:784,1024,1024,10, $ranks x 64 vs 1 x $((ranks * 64))" "$ddp" "$single" "$t" \
        "<= 1.25x" "$verdict"
done
exit 0
