# bench/common.sh: the set-up the benchmarks against PyTorch
# (train_vs_torch.sh, ddp_vs_torch.sh) share, sourced by them after they set
# BENCH_NAME (the prefix of their error messages):
#   . "$(dirname "$0")/common.sh" "$@"
# It reads the build directory from the first argument and the common
# environment (REPEAT, WARMUP, DDPLAB_PYTHON), and defines the helpers that
# find the program, check torch, pin the thread pools, hold scratch files,
# and turn runs into steps per second.

# shellcheck shell=bash

# Read by the scripts that source this file.
# shellcheck disable=SC2034
BUILD=${1:-./build}
# shellcheck disable=SC2034
REPEAT=${REPEAT:-3}
# shellcheck disable=SC2034
WARMUP=${WARMUP:-20}
PY=${DDPLAB_PYTHON:-/usr/bin/python3}

die() { echo "$BENCH_NAME: $*" >&2; exit 1; }

bench_find_ddplab() { # sets DDPLAB to the built program in $BUILD, or dies
    [ -d "$BUILD" ] || die "no build directory $BUILD (build first: cmake -S . -B $BUILD && cmake --build $BUILD)"
    DDPLAB=""
    local f
    for f in "$BUILD/ddplab" "$BUILD/cli/ddplab" "$BUILD/bin/ddplab"; do
        [ -x "$f" ] && { DDPLAB=$f; break; }
    done
    [ -n "$DDPLAB" ] || die "no ddplab program in $BUILD"
}

bench_need_torch() { # bench_need_torch CODE WHAT: dies unless $PY runs CODE
    "$PY" -c "$1" 2>/dev/null || die "$PY cannot import $2 (apt-get install python3-torch)"
}

bench_scratch() { # one thread per process, and TMP (removed on exit) with mlp_loop.py
    export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
    TMP=$(mktemp -d)
    trap 'rm -rf "$TMP"' EXIT
    # What both torch sides import from the script's own directory.
    cat >"$TMP/mlp_loop.py" <<'PYEOF'
# The torch side's model and timed loop, shared by the benchmarks' scripts.
import time

import torch.nn as nn
import torch.nn.functional as F


def mlp(widths):
    """The model of `ddplab run --model mlp:W`: Linear layers with ReLU between."""
    layers = []
    for i in range(len(widths) - 1):
        layers.append(nn.Linear(widths[i], widths[i + 1]))
        if i < len(widths) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def timed_loop(model, opt, x_all, y_all, source, steps, warmup, at_warmup=lambda: None):
    """Trains for steps batches of indices from source; returns the seconds
    from step warmup (after at_warmup()) to the end:
    zero_grad / forward / loss.item() / backward / step."""
    start = None
    for step in range(steps):
        if step == warmup:
            at_warmup()
            start = time.perf_counter()
        idx = next(source)
        x, y = x_all[idx], y_all[idx]
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.item()
        loss.backward()
        opt.step()
    return time.perf_counter() - start
PYEOF
}

metrics_rate() { # metrics_rate FILE: steps/s of a --metrics file after WARMUP steps
    "$PY" - "$1" "$WARMUP" <<'PYEOF'
import json, sys
walls = [json.loads(line)["wall_s"] for line in open(sys.argv[1])]
timed = walls[int(sys.argv[2]):]
print("%.3f" % (len(timed) / sum(timed)))
PYEOF
}

best() { # best CMD...: the largest of REPEAT runs of CMD
    local b=0 r
    for _ in $(seq "$REPEAT"); do
        r=$("$@")
        b=$("$PY" -c "print(max($b, $r))")
    done
    echo "$b"
}

host_line() { # the header line that describes the machine
    printf '# host: %s, %s cores (%s)\n' "$(uname -m)" "$(getconf _NPROCESSORS_ONLN)" \
        "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
}

torch_version() { "$PY" -c 'import torch; print(torch.__version__)'; }
