#!/usr/bin/env bash
# bench/allreduce_vs_mpi.sh: ddplab's CPU all_reduce against OpenMPI's
# MPI_Allreduce and against this machine's memory bandwidth, in one run on one
# machine, reported as ratios.
#
# Usage: bench/allreduce_vs_mpi.sh [BUILD_DIR]     (default ./build)
# It builds and installs nothing: BUILD_DIR must hold a configured and built
# ddplab (with MPI found, so that bench/mpi_allreduce exists). It runs, for
# R = 2 and 4 ranks, sizes 4 KiB .. 64 MiB (fp32, sum, out-of-place):
#   mpirun -np R bench/mpi_allreduce             (processes, shared memory)
#   ddplab bench -c all_reduce -n R ... --csv    (pthread ranks)
# and bench/memcpy_bw, then prints one table and the checks below. It exits
# 0 whatever the figures are (it is a benchmark, not a test) and 1 only when
# something failed to run or gave wrong results.
#
# The memory-traffic bound. An out-of-place all_reduce of S bytes on R ranks
# that share one memory system must at least read every rank's input once
# (R*S bytes) and write every rank's output once (R*S bytes): 2RS bytes of
# memory traffic, whatever the algorithm (a ring or a tree moves more; only
# caches can hide some of it). With M the machine's memory traffic bandwidth
# (read + write bytes per second, all cores: memcpy_bw's traffic_GBps with N
# threads), the best possible time is
#     t_min = 2RS / M,
# so the best algbw is S / t_min = M / (2R), and the best bus bandwidth
# (nccl-tests' busbw = algbw * 2(R-1)/R) is
#     busbw_bound = M/(2R) * 2(R-1)/R = M (R-1) / R^2.
# (R = 2: M/4; R = 4: 3M/16.) Sizes whose 2RS bytes fit in the last-level
# cache can beat it; the bound is about DRAM.
#
# Targets, each printed as PASS or FAIL:
#   at 16, 32 and 64 MiB, R = 2 and 4:  ddplab busbw >= 0.5 x bound
#                                       ddplab busbw >= 2 x OpenMPI busbw
#   at 4 KiB, R = 2 and 4:              ddplab time <= OpenMPI time
#
# Environment: RANKS (default "2 4"); MPIRUN_ARGS (extra mpirun arguments);
# RESULTS=dir keeps the raw CSV outputs there (all sizes), and with REUSE=1
# the runs are skipped and the table is printed again from them.
set -euo pipefail

BUILD=${1:-./build}
RANKS=${RANKS:-"2 4"}
MINB=4K MAXB=64M STEP=2

die() { echo "allreduce_vs_mpi: $*" >&2; exit 1; }

find_exe() { # first executable among the arguments
    for f in "$@"; do [ -x "$f" ] && { echo "$f"; return 0; }; done
    return 1
}

[ -d "$BUILD" ] || die "no build directory $BUILD (build first: cmake -S . -B $BUILD && cmake --build $BUILD)"
DDPLAB=$(find_exe "$BUILD/cli/ddplab" "$BUILD/ddplab" "$BUILD/bin/ddplab") ||
    die "no ddplab program in $BUILD (looked in cli/, ./ and bin/)"
MPIBENCH=$(find_exe "$BUILD/bench/mpi_allreduce") ||
    die "no $BUILD/bench/mpi_allreduce: the build did not find MPI (apt-get install openmpi-bin libopenmpi-dev, then reconfigure)"
MEMCPY=$(find_exe "$BUILD/bench/memcpy_bw") || die "no $BUILD/bench/memcpy_bw"
command -v mpirun >/dev/null || die "mpirun not found (apt-get install openmpi-bin)"

# Shared-memory transport: OpenMPI 4 calls it "vader", OpenMPI 5 "sm".
BTL=sm
if command -v ompi_info >/dev/null && ompi_info --parsable 2>/dev/null | grep -q '^mca:btl:vader:'; then
    BTL=vader
fi
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl "self,$BTL")
# shellcheck disable=SC2206
[ -n "${MPIRUN_ARGS:-}" ] && MPIRUN+=($MPIRUN_ARGS)

if [ -n "${RESULTS:-}" ]; then
    TMP=$RESULTS
    mkdir -p "$TMP"
else
    TMP=$(mktemp -d)
    trap 'rm -rf "$TMP"' EXIT
fi

run() { # run OUTFILE CMD...: runs CMD, stdout to OUTFILE; dies on failure
    local out=$1; shift
    echo "+ $*" >&2
    if ! timeout 900 "$@" >"$out" 2>"$out.err"; then
        cat "$out.err" >&2
        die "failed: $*"
    fi
}

for R in $RANKS; do
    [ "${REUSE:-0}" = 1 ] && break
    run "$TMP/mpi_$R.csv" "${MPIRUN[@]}" -np "$R" "$MPIBENCH" -b "$MINB" -e "$MAXB" -f "$STEP"
    run "$TMP/ddplab_$R.csv" "$DDPLAB" bench -c all_reduce -n "$R" -b "$MINB" -e "$MAXB" -f "$STEP" --csv
done
[ "${REUSE:-0}" = 1 ] || run "$TMP/memcpy.csv" "$MEMCPY"

# ----------------------------------------------------------------------------
# The table. Each CSV is read by its header line, so extra or reordered
# columns do not matter; ddplab's out-of-place rows are used (the best busbw
# if several algorithms are listed for one size).
awk -F, -v ranks="$RANKS" -v tmp="$TMP" '
function header(line,    n, i, f) {
    delete col; n = split(line, f, ",")
    for (i = 1; i <= n; i++) col[f[i]] = i
}
function load_memcpy(path,    line, f, th) {
    while ((getline line < path) > 0) {
        split(line, f, ",")
        if (f[1] == "kind") { header(line); continue }
        th = f[col["threads"]] + 0
        if (th == 1) { M1 = f[col["traffic_GBps"]] + 0; C1 = f[col["copy_GBps"]] + 0 }
        if (th >= NT) { NT = th; M = f[col["traffic_GBps"]] + 0; CN = f[col["copy_GBps"]] + 0 }
    }
    close(path)
}
function load(path, who, R,    line, f, k, ip, bw) {
    while ((getline line < path) > 0) {
        if (line ~ /^(peer|collective),/) { header(line); continue }
        if (!("bytes" in col) || !("busbw_GBps" in col)) continue
        split(line, f, ",")
        if (("collective" in col) && f[col["collective"]] != "all_reduce") continue
        if ("inplace" in col) { ip = f[col["inplace"]]; if (ip != "0" && ip != "no" && ip != "false") continue }
        if (("wrong" in col) && f[col["wrong"]] + 0 != 0) bad = bad " " who "(R=" R ", " f[col["bytes"]] " B)"
        k = who SUBSEP R SUBSEP (f[col["bytes"]] + 0)
        bw = f[col["busbw_GBps"]] + 0
        if (!(k in busbw) || bw > busbw[k]) { busbw[k] = bw; tus[k] = f[col["time_us"]] + 0 }
    }
    close(path)
}
function human(b) { return b >= 1048576 ? (b / 1048576) " MiB" : (b / 1024) " KiB" }
function verdict(ok) { checks++; if (ok) passed++; return ok ? "PASS" : "FAIL" }
BEGIN {
    load_memcpy(tmp "/memcpy.csv")
    nr = split(ranks, RK, " ")
    for (i = 1; i <= nr; i++) {
        load(tmp "/mpi_" RK[i] ".csv", "mpi", RK[i])
        load(tmp "/ddplab_" RK[i] ".csv", "ddplab", RK[i])
    }
    ns = split("4096 16777216 33554432 67108864", SZ, " ")

    printf "memory bandwidth (memcpy): 1 thread %.1f GB/s copied = %.1f GB/s traffic; %d threads %.1f GB/s copied = M = %.1f GB/s traffic\n", C1, M1, NT, CN, M
    printf "memory-traffic bound on all_reduce busbw: M (R-1)/R^2\n\n"
    printf "%5s %8s | %12s %13s %7s | %9s %8s | %10s %11s\n", "ranks", "size", "ddplab busbw", "OpenMPI busbw", "ratio", "bound", "of bound", "ddplab us", "OpenMPI us"
    for (i = 1; i <= nr; i++) {
        R = RK[i]; bound = M * (R - 1) / (R * R)
        for (j = 1; j <= ns; j++) {
            b = SZ[j]; kd = "ddplab" SUBSEP R SUBSEP b; km = "mpi" SUBSEP R SUBSEP b
            if (!(kd in busbw) || !(km in busbw)) { printf "%5d %8s | missing results\n", R, human(b); missing++; continue }
            ratio = (busbw[km] > 0) ? busbw[kd] / busbw[km] : 0
            share = (bound > 0) ? 100 * busbw[kd] / bound : 0
            printf "%5d %8s | %7.2f GB/s %8.2f GB/s %6.2fx | %4.2f GB/s %7.0f%% | %10.1f %11.1f\n", R, human(b), busbw[kd], busbw[km], ratio, bound, share, tus[kd], tus[km]
        }
    }
    print ""
    for (i = 1; i <= nr; i++) {
        R = RK[i]; bound = M * (R - 1) / (R * R)
        for (j = 1; j <= ns; j++) {
            b = SZ[j]; kd = "ddplab" SUBSEP R SUBSEP b; km = "mpi" SUBSEP R SUBSEP b
            if (!(kd in busbw) || !(km in busbw)) continue
            if (b == 4096) {
                printf "R=%d %-7s ddplab time %.1f us <= OpenMPI time %.1f us: %s\n", R, human(b), tus[kd], tus[km], verdict(tus[kd] <= tus[km])
                continue
            }
            printf "R=%d %-7s ddplab busbw %.2f GB/s >= 0.5 x bound = %.2f GB/s: %s\n", R, human(b), busbw[kd], 0.5 * bound, verdict(busbw[kd] >= 0.5 * bound)
            printf "R=%d %-7s ddplab busbw %.2f GB/s >= 2 x OpenMPI = %.2f GB/s: %s\n", R, human(b), busbw[kd], 2 * busbw[km], verdict(busbw[kd] >= 2 * busbw[km])
        }
    }
    printf "\n%d of %d checks passed\n", passed, checks
    if (bad != "") { print "wrong results:" bad > "/dev/stderr"; exit 1 }
    if (missing) { print "some sizes had no results" > "/dev/stderr"; exit 1 }
}'
