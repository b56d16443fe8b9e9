#!/usr/bin/env bash
# bench/allreduce_vs_nccl.sh: ddplab's all_reduce on the cuda backend against
# NCCL's own ncclAllReduce on the same GPUs and sizes, in one run, reported as
# ratios of bus bandwidth.
#
# Usage: bench/allreduce_vs_nccl.sh [BUILD_DIR]     (default ./build)
# BUILD_DIR must hold a built ddplab with the CUDA backend (then
# bench/nccl_allreduce is built too). On G >= 2 visible GPUs it runs, for
# sizes 1 MiB .. 1 GiB (x4), fp32 sum, in place:
#   bench/nccl_allreduce -g G ...                         (NCCL alone)
#   ddplab bench -B cuda -c all_reduce -n G ... --csv     (through ddplab)
# and prints, per size, both bus bandwidths (nccl-tests' busbw) and their
# ratio. Target, printed as PASS or FAIL: at 64 MiB and above, ddplab's busbw
# >= 0.95 x NCCL's (ddplab adds only its launch path around the same NCCL
# call). With fewer than 2 GPUs there is nothing between GPUs to measure: it
# says so and exits 0. The exit status is 0 whatever the figures are, and 1
# only when something failed to run or a result was wrong.
#
# Environment: SIZES="-b 1M -e 1G -f 4" (the sweep), ITERS (timed calls per
# size, default 20), RESULTS=dir keeps both CSV outputs there.
set -euo pipefail

BUILD=${1:-./build}
SIZES=${SIZES:-"-b 1M -e 1G -f 4"}
ITERS=${ITERS:-20}

die() { echo "allreduce_vs_nccl: $*" >&2; exit 1; }

DDPLAB=
for f in "$BUILD/cli/ddplab" "$BUILD/ddplab" "$BUILD/bin/ddplab"; do
    [ -x "$f" ] && { DDPLAB=$f; break; }
done
[ -n "$DDPLAB" ] || die "no ddplab program in $BUILD"
PEER=$BUILD/bench/nccl_allreduce
[ -x "$PEER" ] || die "no $PEER: the build has no CUDA backend (CUDA toolkit with cuBLAS and NCCL)"

set +e
G=$("$PEER" --count 2>/dev/null)
rc=$?
set -e
if [ $rc -eq 77 ] || [ -z "$G" ]; then
    echo "allreduce_vs_nccl: no GPU here: nothing to measure"
    exit 0
fi
if [ "$G" -lt 2 ]; then
    echo "allreduce_vs_nccl: $G GPU visible: an all_reduce on one GPU moves nothing between GPUs (busbw is 0 by definition); run it on a machine with 2 or more"
    exit 0
fi

out=${RESULTS:-$(mktemp -d)}
mkdir -p "$out"
# shellcheck disable=SC2086 # SIZES is a list of options
"$PEER" -g "$G" $SIZES -w 5 -i "$ITERS" --inplace 1 >"$out/nccl.csv" ||
    die "bench/nccl_allreduce failed (see $out/nccl.csv)"
# shellcheck disable=SC2086
"$DDPLAB" bench -B cuda -c all_reduce -n "$G" $SIZES -w 5 -i "$ITERS" --inplace 1 --csv \
    >"$out/ddplab.csv" || die "ddplab bench failed (see $out/ddplab.csv)"

gpu=$(nvidia-smi -L 2>/dev/null | head -1 | sed 's/ (UUID.*//; s/^GPU 0: //')
echo "all_reduce, fp32 sum, in place, $G GPUs${gpu:+ ($gpu)}"
awk -F, -v G="$G" '
    FNR == 1 { for (i = 1; i <= NF; i++) col[FILENAME, $i] = i; next }
    FILENAME ~ /nccl.csv$/ { nccl[$col[FILENAME, "bytes"]] = $col[FILENAME, "busbw_GBps"];
                             wrong += $col[FILENAME, "wrong"]; next }
    { b = $col[FILENAME, "bytes"]; ddp[b] = $col[FILENAME, "busbw_GBps"];
      wrong += $col[FILENAME, "wrong"]; order[++n] = b }
    END {
        printf "%12s %14s %14s %8s  %s\n", "bytes", "ddplab GB/s", "NCCL GB/s", "ratio", "target"
        for (k = 1; k <= n; k++) {
            b = order[k]; r = nccl[b] > 0 ? ddp[b] / nccl[b] : 0; verdict = ""
            if (b >= 64 * 1048576) verdict = r >= 0.95 ? "PASS (>= 0.95)" : "FAIL (< 0.95)"
            printf "%12d %14.2f %14.2f %8.3f  %s\n", b, ddp[b], nccl[b], r, verdict
        }
        if (wrong > 0) { printf "wrong elements: %d\n", wrong; exit 1 }
    }' "$out/nccl.csv" "$out/ddplab.csv"
[ -n "${RESULTS:-}" ] || rm -rf "$out"
