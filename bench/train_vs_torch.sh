#!/usr/bin/env bash
# bench/train_vs_torch.sh: training steps per second of `ddplab run
# --strategy single` against the same loop in PyTorch, in one run on one
# machine, with one thread each, reported as ratios.
#
# Usage: bench/train_vs_torch.sh [BUILD_DIR]     (default ./build)
# It builds and installs nothing: BUILD_DIR must hold a built ddplab, and
# /usr/bin/python3 must import torch (python3-torch; DDPLAB_PYTHON overrides
# the interpreter). For each configuration it runs
#   ddplab run --model mlp:W --data blobs:n=4096,features=D,classes=C
#              --batch B --steps N --optimizer sgd --lr 0.01 --metrics FILE
#   python3 (the script below): nn.Sequential of the same Linear and ReLU
#              layers, torch.optim.SGD(lr=0.01), cross-entropy, batches drawn
#              from a shuffled permutation of 4096 samples held in memory,
#              zero_grad / forward / loss.item() / backward / step
# with OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1 and
# torch.set_num_threads(1). Both time the same steps: the first WARMUP steps
# are left out (ddplab's from the per-step wall_s of its --metrics file,
# torch's with time.perf_counter around the loop), and steps per second is
# (N - WARMUP) / time. It exits 0 whatever the figures are (a benchmark, not
# a test) and 1 only when something failed to run.
#
# Targets, each printed as PASS or FAIL:
#   mlp:784,1024,1024,10  batch 128   ddplab >= 1.0 x torch   (compute-bound:
#                                     the matrix products decide)
#   mlp:32,64,64,10       batch 32    ddplab >= 5 x torch     (overhead-bound:
#                                     per-op cost of the framework decides)
#
# Environment: REPEAT (default 3) runs of each side, the best kept; STEPS_BIG
# (default 200) and STEPS_SMALL (default 3000); WARMUP (default 20).
set -euo pipefail

# The shared set-up (build directory, REPEAT, WARMUP, the interpreter, and
# the helpers die, best, metrics_rate); BENCH_NAME prefixes its messages.
# shellcheck disable=SC2034
BENCH_NAME=train_vs_torch
# shellcheck source=bench/common.sh disable=SC1091
. "$(dirname "$0")/common.sh" "$@"
STEPS_BIG=${STEPS_BIG:-200}
STEPS_SMALL=${STEPS_SMALL:-3000}

bench_find_ddplab
bench_need_torch "import torch" torch
bench_scratch

cat >"$TMP/torch_loop.py" <<'EOF'
# The PyTorch side: the training loop of `ddplab run` for an MLP, plainly.
import sys

import torch

from mlp_loop import mlp, timed_loop

widths = [int(w) for w in sys.argv[1].split(",")]
batch, steps, warmup = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
torch.set_num_threads(1)
torch.manual_seed(0)
model = mlp(widths)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
n = 4096
x_all = torch.randn(n, widths[0])
y_all = torch.randint(0, widths[-1], (n,))


def batches():
    while True:
        perm = torch.randperm(n)
        for b in range(0, n, batch):
            yield perm[b:b + batch]


elapsed = timed_loop(model, opt, x_all, y_all, batches(), steps, warmup)
print("%.3f" % ((steps - warmup) / elapsed))
EOF

# The two rate functions run through `best` (shellcheck cannot see that).
# shellcheck disable=SC2317
ddplab_rate() { # ddplab_rate WIDTHS BATCH STEPS -> steps/s after the warmup
    local widths=$1 batch=$2 steps=$3 d c
    d=${widths%%,*}
    c=${widths##*,}
    "$DDPLAB" run --model "mlp:$widths" --data "blobs:n=4096,features=$d,classes=$c" \
        --batch "$batch" --steps "$steps" --optimizer sgd --lr 0.01 \
        --metrics "$TMP/m.jsonl" --progress lines --log-every 1000000000 \
        >"$TMP/ddplab.out" 2>"$TMP/ddplab.err" ||
        { cat "$TMP/ddplab.err" >&2; die "ddplab run failed"; }
    metrics_rate "$TMP/m.jsonl"
}

# shellcheck disable=SC2317
torch_rate() { # torch_rate WIDTHS BATCH STEPS -> steps/s after the warmup
    "$PY" "$TMP/torch_loop.py" "$1" "$2" "$3" "$WARMUP" || die "the torch loop failed"
}

printf '# ddplab run --strategy single vs PyTorch %s, 1 thread each, best of %s runs\n' \
    "$(torch_version)" "$REPEAT"
host_line
printf '%-22s %6s %6s %14s %14s %8s %8s %s\n' model batch steps "ddplab step/s" "torch step/s" \
    ratio target result
for cfg in "784,1024,1024,10 128 $STEPS_BIG 1.0" "32,64,64,10 32 $STEPS_SMALL 5.0"; do
    read -r widths batch steps target <<<"$cfg"
    ours=$(best ddplab_rate "$widths" "$batch" "$steps")
    theirs=$(best torch_rate "$widths" "$batch" "$steps")
    ratio=$("$PY" -c "print('%.2f' % ($ours / $theirs))")
    verdict=$("$PY" -c "print('PASS' if $ours / $theirs >= $target else 'FAIL')")
    printf '%-22s %6s %6s %14s %14s %7sx %7sx %s\n' "mlp:$widths" "$batch" "$steps" "$ours" \
        "$theirs" "$ratio" "$target" "$verdict"
done
exit 0
