#!/usr/bin/env bash
# Builds the fuzz targets (fuzz/) with clang and libFuzzer in build-fuzz and
# runs each over its seed corpus (tests/fuzz/<target>/) for a bounded time or
# number of runs.
#
#   scripts/fuzz.sh [SECONDS|-runs=N] [--merge] [target...]
#
#   SECONDS    how long each target runs [60]; -runs=N: N inputs each instead
#   --merge    afterwards, add the inputs that reached new code to
#              tests/fuzz/<target>/ (libFuzzer -merge=1); without it
#              tests/ is never written
#   target     cmdline lesson trace ckpt profile npy progress [all of them]
#
# New inputs go to a fresh scratch directory per target; a crash, leak,
# sanitizer report or hang (-timeout) is saved as
# build-fuzz/findings/<target>-crash-<sha1> (or leak-, timeout-, oom-) and
# the script exits 1 after the other targets have run. Each target's full
# log is build-fuzz/fuzz-logs/<target>.log.
set -euo pipefail
cd "$(dirname "$0")/.."

all=(cmdline lesson trace ckpt shards profile npy progress answers text)
limit=(-max_total_time=60)
merge=0
targets=()
for a in "$@"; do
  case "$a" in
    -runs=*) limit=("$a") ;;
    --merge) merge=1 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *[!0-9]*)
      if [[ " ${all[*]} " == *" $a "* ]]; then
        targets+=("$a")
      else
        echo "fuzz: '$a' is not a target, a number of seconds or -runs=N; targets: ${all[*]}" >&2
        exit 2
      fi ;;
    *) limit=(-max_total_time="$a") ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

dir=build-fuzz
if ! command -v clang >/dev/null; then
  echo "fuzz: clang is not installed; run scripts/setup.sh (apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
fi
if [ ! -f "$dir/CMakeCache.txt" ]; then
  echo "== configuring $dir (clang, libFuzzer, ASan + UBSan)"
  cmake -S . -B "$dir" -DCMAKE_C_COMPILER=clang -DDDPLAB_FUZZ=ON -DDDPLAB_CUDA=OFF \
    -DDDPLAB_WERROR=ON >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log" >&2; exit 1; }
fi
echo "== building the fuzz targets in $dir"
cmake --build "$dir" --target fuzz -j"$(nproc)" >"$dir/fuzz-build.log" 2>&1 ||
  { tail -40 "$dir/fuzz-build.log" >&2; exit 1; }

mkdir -p "$dir/findings" "$dir/fuzz-logs"
root=$(pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ddplab-fuzz-corpus.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
printf '%-8s %10s %9s %6s  %s\n' target runs exec/s cov result
for t in "${targets[@]}"; do
  bin="$root/$dir/fuzz/fuzz_$t"
  seeds="$root/tests/fuzz/$t"
  new="$scratch/$t"
  log="$root/$dir/fuzz-logs/$t.log"
  mkdir -p "$new"
  opts=("${limit[@]}" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1
        -artifact_prefix="$root/$dir/findings/$t-")
  [ -f "fuzz/$t.dict" ] && opts+=(-dict="$root/fuzz/$t.dict")
  # progress: its 36 KB seed (over the entry limit) would set the inputs'
  # length limit, and files that big load 100 times slower than real ones
  [ "$t" = progress ] && opts+=(-max_len=4096)
  # The targets stat and read relative paths: they run in the scratch
  # directory. New inputs go to $new; the seeds are only read.
  if (cd "$scratch" && "$bin" "${opts[@]}" "$new" "$seeds") >"$log" 2>&1; then
    result=ok
  else
    why=$(grep -m1 -oE 'ERROR: [A-Za-z]+: [a-z-]+|runtime error: .{0,60}|deadly signal' "$log" || true)
    result="FAILED: ${why:-see the log} (log: $log)"
    failed+=("$t")
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2 || true)
  printf '%-8s %10s %9s %6s  %s\n' "$t" "${runs:-?}" "${speed:-?}" "${cov:-?}" "$result"
  grep -h 'Test unit written to' "$log" | sed 's/^/         /' || true
  if [ "$merge" = 1 ] && [ "$result" = ok ]; then
    before=$(ls "$seeds" | wc -l)
    (cd "$scratch" && "$bin" -merge=1 -close_fd_mask=3 "$seeds" "$new") >>"$log" 2>&1
    echo "         merged: $(( $(ls "$seeds" | wc -l) - before )) new inputs in $seeds"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in: ${failed[*]}; reproduce with $dir/fuzz/fuzz_TARGET FILE" >&2
  exit 1
fi
