#!/usr/bin/env bash
# bench/plan_scale.sh: how long `ddplab plan` takes at 1024 to 16384 ranks,
# strategy by strategy, with the search for the nearest configuration that
# fits (Llama-2 70B does not fit under DDP or ZeRO-1/2 on 80 GB, so those
# plans search), against FSDP FULL_SHARD's planning time in the same round
# and, given a second program, against that program.
#
# Usage: bench/plan_scale.sh NEW [OLD]     ddplab programs
#   RUNS (default 5): rounds; each round runs every command once, NEW and
#   OLD alternating (their order swapped every round)
#   RANKS (default "1024 4096 16384"), STRATEGIES (default
#   "ddp zero1 zero2 zero3 fsdp"), MODEL (default llama2-70b)
#
# Prints, for each strategy and world size, the wall seconds as min / median
# / max over the rounds and their spread (max/min - 1), the median CPU
# seconds (user + system from /usr/bin/time, in 10 ms steps: what the
# planner costs, less what a busy machine adds to the wall clock), the
# median's ratio to FSDP's at the same size, and with OLD the ratio of the
# medians OLD / NEW.
#
# A measurement, not a test: exit 0 whatever the figures.
set -euo pipefail
RUNS=${RUNS:-5}
RANKS=${RANKS:-"1024 4096 16384"}
STRATEGIES=${STRATEGIES:-"ddp zero1 zero2 zero3 fsdp"}
MODEL=${MODEL:-llama2-70b}
die() { echo "plan_scale: $*" >&2; exit 1; }
[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: bench/plan_scale.sh NEW [OLD]"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
for p in "$@"; do [ -x "$p" ] || die "$p is not a program"; done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# cpu_s PROG S R: "wall_s cpu_s" of one plan (its exit status is 1 when it
# does not fit: that is expected, and time's line saying so is skipped)
cpu_s() {
    local t0=$EPOCHREALTIME
    /usr/bin/time -f "%U %S" -o "$TMP/t" "$1" plan --model "$MODEL" --strategy "$2" -n "$3" \
        >/dev/null 2>&1 || true
    local t1=$EPOCHREALTIME
    tail -1 "$TMP/t" | awk -v a="$t0" -v b="$t1" '{ printf "%.4f %.2f\n", b - a, $1 + $2 }'
}

progs=("$@")
for ((round = 0; round < RUNS; round++)); do
    order=(0 1)
    if ((round % 2)); then order=(1 0); fi
    for R in $RANKS; do
        for S in $STRATEGIES; do
            for i in "${order[@]}"; do
                [ "$i" -lt ${#progs[@]} ] || continue
                cpu_s "${progs[$i]}" "$S" "$R" >>"$TMP/p$i-$S-$R"
            done
        done
    done
    echo "round $((round + 1))/$RUNS done" >&2
done

# stats FILE [COLUMN]: "min median max spread" of the column (1: wall, 2: CPU)
stats() {
    awk -v c="${2:-1}" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END {
        med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        sp = v[1] > 0 ? (v[NR] / v[1] - 1) * 100 : 0
        printf "%.3f %.3f %.3f %.0f%%\n", v[1], med, v[NR], sp }'
}

printf '%-7s %6s  %-28s %7s %11s' strategy ranks "wall s: min / median / max" spread "CPU s (med)"
printf ' %10s' "/ fsdp"
[ ${#progs[@]} -eq 2 ] && printf ' %12s' "old / new"
printf '\n'
for R in $RANKS; do
    fsdp=0
    [ -f "$TMP/p0-fsdp-$R" ] && fsdp=$(stats "$TMP/p0-fsdp-$R" | cut -d' ' -f2)
    for S in $STRATEGIES; do
        read -r mn md mx sp < <(stats "$TMP/p0-$S-$R")
        cpu=$(stats "$TMP/p0-$S-$R" 2 | cut -d' ' -f2)
        printf '%-7s %6s  %-28s %7s %11s' "$S" "$R" "$mn / $md / $mx" "$sp" "$cpu"
        awk -v a="$md" -v b="${fsdp:-0}" 'BEGIN { if (b > 0) printf " %9.2fx", a / b; else printf " %10s", "-" }'
        if [ ${#progs[@]} -eq 2 ]; then
            old=$(stats "$TMP/p1-$S-$R" | cut -d' ' -f2)
            awk -v a="$old" -v b="$md" 'BEGIN { if (b > 0) printf " %11.1fx", a / b; else printf " %12s", "-" }'
        fi
        printf '\n'
    done
done
