#!/usr/bin/env bash
# bench/wait_spread.sh: how much two ranks on two cores differ from run to
# run, and whether 2 ranks are ever slower than 4, against a second program
# (the build before a change) and OpenMPI in the same rounds.
#
# Usage: bench/wait_spread.sh NEW [OLD]     ddplab programs
#   ROUNDS (default 10): rounds; each runs every command once, NEW and OLD
#   alternating (their order swapped every round)
#   MPIBENCH (default: bench/mpi_allreduce next to NEW): OpenMPI's side,
#   skipped when it or mpirun is missing
#
# Each round, for each program:
#   - a 1 MiB fp32 all_reduce on 2 ranks, 500 calls, out of place
#     (`bench -c all_reduce -n 2 -b 1M -e 1M -i 500 --inplace 0`): time per
#     call and the run's context switches;
#   - DDP on MLP 32-64-64-10, batch 64, 5000 steps, on 2 and on 4 ranks: wall
#     seconds;
# and MPI_Allreduce of 1 MiB on 2 processes (vader shared memory), and the
# machine's own spread: the same 1 MiB all_reduce on 1 rank of NEW, which
# copies as much memory and waits for nobody (on a shared virtual machine
# its run-to-run spread is what neighbours' memory traffic adds; a 2-rank
# spread near it is not the wait's).
# Prints min / median / max and the spread (max / min - 1) of each, the
# ratio of the medians OLD / NEW, how many rounds 2 ranks were slower than 4,
# and in how many rounds each program's all_reduce was faster than OpenMPI's
# of the same round.
#
# A measurement, not a test: exit 0 whatever the figures.
set -euo pipefail
ROUNDS=${ROUNDS:-10}
die() { echo "wait_spread: $*" >&2; exit 1; }
[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: bench/wait_spread.sh NEW [OLD]"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
for p in "$@"; do [ -x "$p" ] || die "$p is not a program"; done
MPIBENCH=${MPIBENCH:-$(dirname "$1")/bench/mpi_allreduce}
MPI=0
if [ -x "$MPIBENCH" ] && command -v mpirun >/dev/null; then MPI=1; fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

# allreduce PROG [RANKS] -> "us_per_call context_switches"
allreduce() {
    /usr/bin/time -f "%w %c" -o "$TMP/t" "$1" bench -c all_reduce -n "${2:-2}" -b 1M -e 1M -i 500 \
        --inplace 0 --csv >"$TMP/out" 2>/dev/null || die "$1 bench failed"
    local us sw
    us=$(awk -F, '/^all_reduce/{print $10}' "$TMP/out")
    sw=$(awk '{print $1 + $2}' "$TMP/t")
    echo "$us $sw"
}

# ddp PROG R -> wall seconds
ddp() {
    local t0=$EPOCHREALTIME
    "$1" run --strategy ddp -n "$2" --model mlp:32,64,64,10 \
        --data blobs:n=4096,features=32,classes=10 --batch 64 --steps 5000 \
        --optimizer sgd --lr 0.01 --progress lines --log-every 1000000000 \
        >/dev/null 2>&1 || die "$1 run -n $2 failed"
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.4f\n", b - a}'
}

mpi() {
    mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2 \
        "$MPIBENCH" -b 1M -e 1M -n 500 2>/dev/null | awk -F, '/^openmpi/{print $4}'
}

names=("new")
[ $# -eq 2 ] && names+=("old")
for round in $(seq 1 "$ROUNDS"); do
    order=(0 1)
    [ $((round % 2)) -eq 0 ] && order=(1 0)
    [ $# -eq 1 ] && order=(0)
    for i in "${order[@]}"; do
        prog=$([ "$i" = 0 ] && echo "$1" || echo "$2")
        read -r us sw < <(allreduce "$prog")
        echo "$us" >>"$TMP/${names[$i]}.ar"
        echo "$sw" >>"$TMP/${names[$i]}.sw"
        echo "$round $us" >>"$TMP/${names[$i]}.ar_round"
        d2=$(ddp "$prog" 2)
        d4=$(ddp "$prog" 4)
        echo "$d2" >>"$TMP/${names[$i]}.d2"
        echo "$d4" >>"$TMP/${names[$i]}.d4"
        awk -v a="$d2" -v b="$d4" 'BEGIN{print (a > b) ? 1 : 0}' >>"$TMP/${names[$i]}.slower"
    done
    if [ "$MPI" = 1 ]; then echo "$round $(mpi)" >>"$TMP/mpi_round"; fi
    read -r us _ < <(allreduce "$1" 1)
    echo "$us" >>"$TMP/floor"
    echo "round $round/$ROUNDS done" >&2
done

stats() { # stats FILE -> "min median max spread%"
    sort -g "$1" | awk '{v[NR]=$1} END{m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2;
        printf "%10.3f %10.3f %10.3f %7.0f%%", v[1], m, v[NR], (v[NR] / v[1] - 1) * 100}'
}
median() { sort -g "$1" | awk '{v[NR]=$1} END{print NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

printf "%-34s %-5s %10s %10s %10s %8s\n" "measure" "prog" "min" "median" "max" "spread"
for m in ar:"all_reduce 1 MiB, 2 ranks (us/call)" sw:"  its context switches" \
         d2:"DDP MLP 5000 steps, 2 ranks (s)" d4:"DDP MLP 5000 steps, 4 ranks (s)"; do
    key=${m%%:*}
    for n in "${names[@]}"; do
        printf "%-34s %-5s %s\n" "${m#*:}" "$n" "$(stats "$TMP/$n.$key")"
    done
done
[ "$MPI" = 1 ] && { awk '{print $2}' "$TMP/mpi_round" >"$TMP/mpi"; printf "%-34s %-5s %s\n" \
    "MPI_Allreduce 1 MiB, 2 procs (us)" "mpi" "$(stats "$TMP/mpi")"; }
printf "%-34s %-5s %s\n" "all_reduce 1 MiB, 1 rank (us/call)" "new" "$(stats "$TMP/floor")"
echo
for n in "${names[@]}"; do
    echo "$n: 2 ranks slower than 4 in $(paste -sd+ "$TMP/$n.slower" | bc) of $ROUNDS rounds"
    if [ "$MPI" = 1 ]; then
        faster=$(awk 'NR == FNR {m[$1] = $2; next} $2 < m[$1] {k++} END{print k + 0}' \
            "$TMP/mpi_round" "$TMP/$n.ar_round")
        echo "$n: 1 MiB all_reduce faster than OpenMPI's in $faster of $ROUNDS rounds"
    fi
done
if [ $# -eq 2 ]; then
    for key in ar d2 d4; do
        echo "median old / new, $key: $(awk -v o="$(median "$TMP/old.$key")" \
            -v n="$(median "$TMP/new.$key")" 'BEGIN{printf "%.2fx", o / n}')"
    done
fi
