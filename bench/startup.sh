#!/usr/bin/env bash
# bench/startup.sh: how fast the ddplab program starts and how much memory
# it takes, for two builds side by side.
#
# Usage: bench/startup.sh OLD NEW          two ddplab programs
#        bench/startup.sh --libs PROGRAM   what each library it links costs
#
# OLD NEW: runs, RUNS times each (default 20), alternating the two programs
# (the order swapped every round, so that neither always runs on a warmer
# cache), the commands
#   --help
#   plan --model gpt2 -n 8
#   run --strategy ddp -n 4 --data blobs --model mlp:16,8,4 --steps 20
# and prints for each the median wall time (timed here, around the program
# alone) and the median peak resident memory (/usr/bin/time's %M, in runs of
# their own, so that starting `time` is not in the wall time), and the
# ratios NEW / OLD.
#
# --libs PROGRAM: for each library PROGRAM names as NEEDED, a program that
# does nothing but link that one library (and so load it and what it needs)
# is built with cc and timed the same way, beside an empty one: the start
# time and the memory each library adds, whoever links it.
#
# A measurement, not a test: it builds nothing of ddplab and installs
# nothing; exit 0 whatever the figures. Run it on a quiet machine.
# /usr/bin/time is the Debian package `time` (scripts/setup.sh installs it).
set -euo pipefail
RUNS=${RUNS:-20}
die() { echo "startup: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The wall time of one run of "$@", in ms, printed.
wall_ms() {
    local t0=$EPOCHREALTIME
    "$@" >/dev/null 2>&1 || true
    local t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) * 1000 }'
}
# The peak resident memory of one run of "$@", in KiB, printed.
peak_kib() {
    /usr/bin/time -f '%M' -o "$TMP/rss" "$@" >/dev/null 2>&1 || true
    tail -1 "$TMP/rss"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Measures the programs in "${progs[@]}" on the command "$@", RUNS times
# each, alternating; writes TMP/<index>.ms and TMP/<index>.kib.
measure() {
    local n=${#progs[@]} i r k
    for ((i = 0; i < n; i++)); do : >"$TMP/$i.ms"; : >"$TMP/$i.kib"; done
    for ((r = 0; r < RUNS; r++)); do
        for ((k = 0; k < n; k++)); do
            i=$(( r % 2 ? n - 1 - k : k ))
            wall_ms "${progs[$i]}" "$@" >>"$TMP/$i.ms"
        done
        for ((k = 0; k < n; k++)); do
            i=$(( r % 2 ? n - 1 - k : k ))
            peak_kib "${progs[$i]}" "$@" >>"$TMP/$i.kib"
        done
    done
}

if [ "${1:-}" = "--libs" ]; then
    [ $# -eq 2 ] && [ -x "$2" ] || die "usage: bench/startup.sh --libs PROGRAM"
    command -v cc >/dev/null || die "no C compiler (cc) to build the one-library programs"
    echo 'int main(void) { return 0; }' >"$TMP/empty.c"
    mapfile -t needed < <(readelf -d "$2" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    progs=() names=()
    cc -o "$TMP/p_none" "$TMP/empty.c"
    progs+=("$TMP/p_none") names+=("(no library)")
    for lib in "${needed[@]}"; do
        case $lib in libc.so.*|libm.so.*) continue ;; esac
        exe="$TMP/p_${#progs[@]}"
        cc -o "$exe" "$TMP/empty.c" -Wl,--no-as-needed "-l:$lib" 2>/dev/null ||
            { echo "startup: cannot link $lib alone: left out" >&2; continue; }
        progs+=("$exe") names+=("$lib")
    done
    measure
    printf '%s: each library %s links, alone in an empty program (median of %d runs)\n' \
        "$2" "$(basename "$2")" "$RUNS"
    printf '%-28s %10s %10s %12s %12s %6s\n' library "start ms" "+ms" "peak MiB" "+MiB" libs
    base_ms=$(median <"$TMP/0.ms") base_kib=$(median <"$TMP/0.kib")
    for ((i = 0; i < ${#progs[@]}; i++)); do
        ms=$(median <"$TMP/$i.ms") kib=$(median <"$TMP/$i.kib")
        nlibs=$(ldd "${progs[$i]}" | grep -c '=>' || true)
        awk -v n="${names[$i]}" -v ms="$ms" -v kib="$kib" -v bms="$base_ms" -v bkib="$base_kib" \
            -v l="$nlibs" 'BEGIN { printf "%-28s %10.2f %10.2f %12.1f %12.1f %6d\n",
                n, ms, ms - bms, kib / 1024, (kib - bkib) / 1024, l }'
    done
    exit 0
fi

[ $# -eq 2 ] || die "usage: bench/startup.sh OLD NEW  (or --libs PROGRAM)"
old=$(realpath "$1") new=$(realpath "$2")
[ -x "$old" ] && [ -x "$new" ] || die "OLD and NEW must be ddplab programs"
progs=("$old" "$new")
cd "$TMP" # whatever a command writes stays here
echo "startup: OLD $old"
echo "startup: NEW $new"
echo "median of $RUNS runs each, alternating; $(nproc) cores"
printf '%-68s %9s %9s %7s %10s %10s %7s\n' command "OLD ms" "NEW ms" ratio "OLD MiB" "NEW MiB" ratio
cases=("--help" "plan --model gpt2 -n 8"
       "run --strategy ddp -n 4 --data blobs --model mlp:16,8,4 --steps 20")
for c in "${cases[@]}"; do
    read -r -a argv <<<"$c"
    measure "${argv[@]}"
    awk -v c="$c" -v om="$(median <"$TMP/0.ms")" -v nm="$(median <"$TMP/1.ms")" \
        -v ok="$(median <"$TMP/0.kib")" -v nk="$(median <"$TMP/1.kib")" \
        'BEGIN { printf "%-68s %9.2f %9.2f %6.2fx %10.1f %10.1f %6.2fx\n",
                 c, om, nm, nm / om, ok / 1024, nk / 1024, nk / ok }'
done
