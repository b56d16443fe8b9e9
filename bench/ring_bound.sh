#!/usr/bin/env bash
# bench/ring_bound.sh: the CPU backend's ring all_reduce against the memory
# traffic it must make, against the direct algorithm, and against an older
# program, in one run on one machine, reported as ratios.
#
# Usage: bench/ring_bound.sh NEW [OLD]     (ddplab programs, e.g. build/ddplab)
# For every round (ROUNDS, default 5) and R in RANKS (default "2 4") it runs
#   NEW bench -c all_reduce -n R -a ring   -b 1M -e 16M -f 4 --csv
#   NEW bench -c all_reduce -n R -a direct (same sizes)
#   OLD bench -c all_reduce -n R -a ring   (when OLD is given)
# in an order that rotates every round, and memcpy_bw once per round, then
# prints per R and size the median bus bandwidths (min..max of the ring's
# beside it) and the ratios ring / direct, ring / bound and NEW / OLD.
#
# The bound of what the ring moves. At reduce-scatter step s rank q reads a
# chunk of S/R bytes from its neighbour and its own value of it, adds, and
# writes the sum (3 S/R bytes of memory traffic); at all-gather step s it
# reads a chunk from its neighbour and writes it (2 S/R). Over 2(R-1) steps
# that is 5(R-1)/R S per rank, 5(R-1) S for all R ranks, which share one
# memory system of traffic bandwidth M (memcpy_bw's traffic_GBps with all
# cores: read + write bytes per second). So
#     t_min = 5 (R-1) S / M,   busbw_bound = S / t_min * 2(R-1)/R = 2M / (5R)
# (R = 2: M/5; R = 4: M/10). An initial copy of the send buffer into the
# recv buffer would add 2S per rank; the ring has none (backend_cpu/cpu_ring.c).
# Sizes whose buffers fit in the caches can beat the bound: it is about the
# memory behind the last-level cache.
#
# Environment: ROUNDS (5), RANKS ("2 4"), MINB (1M), MAXB (16M), STEP (4),
# ITERS (20), INPLACE (0: out-of-place, 1: in-place), MEMCPY (memcpy_bw;
# default: bench/memcpy_bw beside NEW), RESULTS=dir keeps the raw CSV files.
# It exits 0 whatever the figures are, 1 when a program fails or a result is
# wrong.
set -euo pipefail

NEW=${1:?usage: bench/ring_bound.sh NEW_DDPLAB [OLD_DDPLAB]}
OLD=${2:-}
ROUNDS=${ROUNDS:-5}
RANKS=${RANKS:-"2 4"}
MINB=${MINB:-1M} MAXB=${MAXB:-16M} STEP=${STEP:-4}
ITERS=${ITERS:-20}
INPLACE=${INPLACE:-0}
PY=${DDPLAB_PYTHON:-/usr/bin/python3}

die() { echo "ring_bound: $*" >&2; exit 1; }

[ -x "$NEW" ] || die "no program $NEW"
[ -z "$OLD" ] || [ -x "$OLD" ] || die "no program $OLD"
MEMCPY=${MEMCPY:-}
if [ -z "$MEMCPY" ]; then
    for f in "$(dirname "$NEW")/bench/memcpy_bw" "$(dirname "$NEW")/../bench/memcpy_bw"; do
        [ -x "$f" ] && { MEMCPY=$f; break; }
    done
fi
[ -n "$MEMCPY" ] && [ -x "$MEMCPY" ] || die "no memcpy_bw (build it, or set MEMCPY)"

if [ -n "${RESULTS:-}" ]; then
    TMP=$RESULTS
    mkdir -p "$TMP"
else
    TMP=$(mktemp -d)
    trap 'rm -rf "$TMP"' EXIT
fi

run() { # run OUTFILE CMD...: appends CMD's stdout to OUTFILE; dies on failure
    local out=$1; shift
    if ! timeout 900 "$@" >>"$out" 2>"$TMP/err"; then
        cat "$TMP/err" >&2
        die "failed: $*"
    fi
}

sweep() { # sweep TAG PROGRAM ALGO R
    run "$TMP/$1.csv" "$2" bench -c all_reduce -n "$4" -a "$3" -b "$MINB" -e "$MAXB" \
        -f "$STEP" -i "$ITERS" --inplace "$INPLACE" --csv
}

for f in memcpy new_ring new_direct old_ring; do : >"$TMP/$f.csv"; done
[ -n "$OLD" ] || rm -f "$TMP/old_ring.csv"
printf '# ring_bound: %s rounds, ranks %s, %s..%s, in-place %s, load average %s\n' \
    "$ROUNDS" "$RANKS" "$MINB" "$MAXB" "$INPLACE" "$(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
    for R in $RANKS; do
        jobs=("new_ring $NEW ring" "new_direct $NEW direct")
        [ -n "$OLD" ] && jobs+=("old_ring $OLD ring")
        n=${#jobs[@]}
        for k in $(seq 0 $((n - 1))); do
            # shellcheck disable=SC2086
            set -- ${jobs[$(((k + round) % n))]}
            sweep "$1" "$2" "$3" "$R"
        done
    done
    run "$TMP/memcpy.csv" "$MEMCPY"
done

"$PY" - "$TMP" "$RANKS" <<'PYEOF'
import csv, os, statistics, sys

tmp, ranks = sys.argv[1], [int(r) for r in sys.argv[2].split()]

def load(tag):  # {(R, bytes): [busbw, ...]} of every round
    out = {}
    path = os.path.join(tmp, tag + ".csv")
    if not os.path.exists(path):
        return out
    for row in csv.reader(open(path)):
        if not row or row[0] != "all_reduce":
            continue
        if int(row[12]) != 0:
            sys.exit("ring_bound: %s: %s wrong elements at %s bytes" % (tag, row[12], row[3]))
        out.setdefault((int(row[2]), int(row[3])), []).append(float(row[11]))
    return out

m = [float(r[5]) for r in csv.reader(open(os.path.join(tmp, "memcpy.csv")))
     if r and r[0] == "memcpy" and int(r[1]) > 1]
M = statistics.median(m)
ring, direct, old = load("new_ring"), load("new_direct"), load("old_ring")
print("# memory traffic bandwidth M = %.1f GB/s (median of %d, %.1f..%.1f)"
      % (M, len(m), min(m), max(m)))
print("# busbw in GB/s, medians; bound = 2M/(5R)")
hdr = ["ranks", "size", "ring", "ring min..max", "direct", "ring/direct", "bound",
       "ring/bound"]
if old:
    hdr += ["old ring", "new/old", "old/bound"]
print(" | ".join(hdr))
for R in ranks:
    bound = 2 * M / (5 * R)
    for (r, size) in sorted(k for k in ring if k[0] == R):
        v = ring[(r, size)]
        med = statistics.median(v)
        d = statistics.median(direct[(r, size)])
        cells = ["%d" % R, "%d MiB" % (size >> 20) if size >= 1 << 20 else "%d KiB" % (size >> 10),
                 "%.2f" % med, "%.2f..%.2f" % (min(v), max(v)), "%.2f" % d,
                 "%.2fx" % (med / d), "%.2f" % bound, "%.0f%%" % (100 * med / bound)]
        if old:
            o = statistics.median(old[(r, size)])
            cells += ["%.2f" % o, "%.2fx" % (med / o), "%.0f%%" % (100 * o / bound)]
        print(" | ".join(cells))
PYEOF
