#!/usr/bin/env bash
# scripts/gpu_check.sh [BUNDLE_DIR] [LOG_DIR]: every GPU check in one go, on a
# GPU machine, from the archive scripts/gpu_bundle.sh made (BUNDLE_DIR,
# default gpu-bundle). Run from the source tree (the lessons and the test
# scripts are read from it):
#   1. every test labelled cuda (each op against the cpu backend, the
#      collectives in every world mode the machine has, process worlds and
#      the trace merge, the NCCL peer);
#   2. tests/test_cuda_cli.sh's checks: strategy parity, every collective
#      through `ddplab bench` with #wrong = 0, the cpu,cuda comparisons, the
#      measured overlap and each op on both clocks, calibration, cancel and
#      crash (part "cli");
#   2b. tests/test_cuda_cli.sh's lessons: every lesson on cuda (part
#      "lessons");
#   3. bench/allreduce_vs_nccl.sh: ddplab's all_reduce against NCCL's own
#      (2 or more GPUs; with one it says so).
# Each part's whole output goes to LOG_DIR (default $OUT when set, else
# gpu-check-logs): cuda-tests.log, cuda-cli.log, cuda-lessons.log,
# vs-nccl.log; a summary goes
# to stdout. Exit 0 when every part passed (skips included), 1 otherwise,
# 77 without a GPU (GPU_CHECK_DRY_RUN=1 goes on anyway, every part skipping:
# a rehearsal of this script on a machine without one). GPU_CHECK_PARTS
# picks parts: "tests cli lessons nccl" (the default: all four), and
# "extra": the script GPU_CHECK_EXTRA names, run with DDPLAB set to the
# unpacked ddplab and LOGS to LOG_DIR, its output to extra.log (a
# measurement of the moment, without a change to this script). Parts run
# one after another; to use a GPU machine's time well, run two or three
# instances side by side, each with its parts and its own LOG_DIR.
set -uo pipefail
cd "$(dirname "$0")/.."
bundle=${1:-gpu-bundle}
logs=${2:-${OUT:-gpu-check-logs}}
[ -f "$bundle/ddplab-gpu.tar.xz" ] ||
    { echo "gpu_check: no $bundle/ddplab-gpu.tar.xz (make it with scripts/gpu_bundle.sh)" >&2; exit 2; }
mkdir -p "$logs"
B=$(mktemp -d /tmp/ddplab-gpu.XXXXXX)
trap 'rm -rf "$B"' EXIT
tar -C "$B" -xJf "$bundle/ddplab-gpu.tar.xz" || { echo "gpu_check: cannot unpack" >&2; exit 1; }

# The bundle's libraries, then the machine's CUDA libraries wherever the
# toolkit or a Python package put them (cuBLAS, NCCL), then the system's.
cuda_dirs=
for lib in libcublas.so.13 libnccl.so.2 libcudart.so.13; do
    d=$(ldconfig -p 2>/dev/null | awk -v l="$lib" '$1 == l {print $NF; exit}')
    [ -n "$d" ] && continue
    f=$(find /usr/local /usr/lib /opt "$(python3 -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null || echo /nonexistent)" \
            -name "$lib" -not -path '*/stubs/*' 2>/dev/null | head -1)
    [ -n "$f" ] && cuda_dirs=$cuda_dirs:$(dirname "$f")
done
export LD_LIBRARY_PATH=$B/lib$cuda_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
missing=$(ldd "$B/ddplab" "$B"/lib/ddplab/*.so "$B"/tests/* "$B"/bench/* 2>&1 | grep "not found" |
    sort -u)
if [ -n "$missing" ]; then
    echo "gpu_check: libraries not found on this machine:"; echo "$missing"
    exit 1
fi
nvidia-smi -L 2>/dev/null | sed 's/ (UUID.*//'
"$B/ddplab" run --backend cuda --steps 1 >/dev/null 2>"$B/probe.err"
probe=$?
# the plugin (lib/ddplab/ddplab-cuda.so in the bundle) must load, GPU or not
if [ $probe -eq 4 ] && grep -q "cannot load the cuda backend" "$B/probe.err"; then
    echo "gpu_check: $(head -1 "$B/probe.err")"
    exit 1
fi
if [ $probe -eq 4 ] && grep -q "no CUDA device" "$B/probe.err" && [ -z "${GPU_CHECK_DRY_RUN:-}" ]; then
    echo "gpu_check: no GPU here ($(head -1 "$B/probe.err"))"
    exit 77
fi

fail=0
summary() { # name, exit code
    case $2 in
        0) echo "ok      $1" ;;
        77) echo "skipped $1" ;;
        *) echo "FAILED  $1 (exit $2)"; fail=1 ;;
    esac
}

parts=${GPU_CHECK_PARTS:-"tests cli lessons nccl"}
want() { [[ " $parts " == *" $1 "* ]]; }

want tests && echo "== 1. the tests labelled cuda" | tee "$logs/cuda-tests.log"
want tests && while IFS=$'\t' read -r name exe args; do
    exe=${exe//@B@/$B}
    read -r -a argv <<<"${args//@B@/$B}"
    start=$(date +%s)
    echo "-- $name" >>"$logs/cuda-tests.log"
    timeout 600 "$exe" "${argv[@]}" >>"$logs/cuda-tests.log" 2>&1
    rc=$?
    summary "$name ($(($(date +%s) - start)) s)" $rc
done < <(sed "s|@S@|$PWD|g" "$B/cuda-tests.list")

# One part of tests/test_cuda_cli.sh (CUDA_CLI_PARTS): its log, its verdict.
cli_part() { # title, CUDA_CLI_PARTS, log file
    echo "== $1" | tee "$3"
    local start=$(date +%s)
    CUDA_CLI_PARTS=$2 timeout 900 tests/test_cuda_cli.sh "$B/ddplab" lessons >>"$3" 2>&1
    local rc=$?
    summary "test_cuda_cli.sh $2 ($(($(date +%s) - start)) s)" $rc
}

if want cli; then
    cli_part "2. tests/test_cuda_cli.sh's checks" checks "$logs/cuda-cli.log"
    grep -E "^(ok|FAILED) " "$logs/cuda-cli.log" | head -40
fi

if want lessons; then
    cli_part "2b. tests/test_cuda_cli.sh's lessons" lessons "$logs/cuda-lessons.log"
    grep -E "^FAILED " "$logs/cuda-lessons.log" | head -40
    echo "$(grep -c "^ok     lesson" "$logs/cuda-lessons.log") lessons played on cuda"
fi

if want nccl; then
    echo "== 3. bench/allreduce_vs_nccl.sh" | tee "$logs/vs-nccl.log"
    mkdir -p "$B/build/bench"
    ln -s "$B/ddplab" "$B/build/ddplab"
    ln -s "$B/bench/nccl_allreduce" "$B/build/bench/nccl_allreduce"
    timeout 600 bench/allreduce_vs_nccl.sh "$B/build" >>"$logs/vs-nccl.log" 2>&1
    rc=$?
    summary "allreduce_vs_nccl.sh" $rc
    tail -n +2 "$logs/vs-nccl.log"
fi
if want extra; then
    echo "== extra: ${GPU_CHECK_EXTRA:-(no GPU_CHECK_EXTRA)}" | tee "$logs/extra.log"
    start=$(date +%s)
    rc=2
    [ -f "${GPU_CHECK_EXTRA:-}" ] && { DDPLAB=$B/ddplab LOGS=$logs timeout 600 bash "$GPU_CHECK_EXTRA" \
        >>"$logs/extra.log" 2>&1; rc=$?; }
    summary "extra ($(($(date +%s) - start)) s)" $rc
fi
exit $fail
