#!/bin/sh
# tests/test_signals_tmux.sh DDPLAB: signals while `ddplab run --viz ncurses`
# shows a run live in a tmux pane of 120x40 (the ranks on a thread of their
# own, the view on the main one):
#   Ctrl-C typed into the pane (the terminal sends SIGINT to the program)
#   and `kill -TERM` of the program: the run stops, the view closes, the
#   terminal is back in canonical mode with echo, the shell after it runs,
#   the program ends with 130 / 143 after the line "interrupted by ...",
#   and its directory holds only the checkpoint it saved before and the
#   --metrics log, whose every line is whole (no temporary);
#   Ctrl-C while a lesson's run block trains (text pauses): the lesson
#   stops, the terminal is sane, and the shell sees 130.
# Exit 77 (skipped) without tmux or without the ncurses view.
set -u
exe=${1:?usage: test_signals_tmux.sh DDPLAB}
case $exe in /*) ;; *) exe="$(pwd)/$exe" ;; esac
command -v tmux >/dev/null 2>&1 || { echo "skipped: tmux is not installed"; exit 77; }
"$exe" run --help | grep -q -- "ncurses" || { echo "skipped: no ncurses view"; exit 77; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/ddplab-sig-tmux.XXXXXX") || exit 1
export TMUX_TMPDIR="$dir"
unset TMUX
T() { tmux -L sig -f /dev/null "$@"; }
cleanup() { T kill-server >/dev/null 2>&1; rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
wait_s=${VIZ_WAIT_S:-60}
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

screen() { T capture-pane -p -J -t "$1"; }
# wait_for NAME REGEX: until the pane shows it; 1 on timeout.
wait_for() {
  i=0
  while [ $i -lt $((wait_s * 10)) ]; do
    s=$(screen "$1") || return 1 # the pane is gone
    echo "$s" | grep -Eq -- "$2" && return 0
    echo "$s" | grep -qx END && break # the program ended without it
    sleep 0.1
    i=$((i + 1))
  done
  echo "--- no /$2/ in $1:"
  screen "$1" | grep -v '^$'
  return 1
}
# start NAME WORKDIR COMMAND: a pane running COMMAND (sh syntax) in WORKDIR,
# then the exit status, the terminal's icanon/echo flags and END. The
# program's pid is written to $dir/NAME.pid (its script execs it). The
# pane's shell traps SIGINT so that it lives on to report a program that
# Ctrl-C ended (a shell waiting for a program that dies of SIGINT dies too).
start() {
  printf 'echo $$ > "%s/%s.pid"\nexec %s\n' "$dir" "$1" "$3" > "$dir/$1.sh"
  T new-session -d -s "$1" -x 120 -y 40 \
    "trap true INT; cd '$2' && sh '$dir/$1.sh'; echo EXIT=\$?; \
     stty -a | tr -s ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo; \
     echo END; sleep 600"
}
# sane NAME CODE: the pane shows EXIT=CODE, icanon and echo.
sane() {
  wait_for "$1" '^END$' || return 1
  s=$(screen "$1")
  echo "$s" | grep -qx "EXIT=$2" || { echo "$s" | grep EXIT=; return 1; }
  echo "$s" | grep -qx icanon && echo "$s" | grep -qx echo
}
# leftovers WORKDIR: what is in the directory besides ck.st and m.jsonl.
leftovers() { ls -A "$1" | grep -vx -e ck.st -e m.jsonl; }
# whole_log WORKDIR: m.jsonl has lines, each a metrics line ending in '}'.
whole_log() {
  [ -s "$1/m.jsonl" ] && [ "$(tail -c 1 "$1/m.jsonl" | od -An -c | tr -d ' ')" = '\n' ] &&
    ! grep -qv '^{"step":.*}$' "$1/m.jsonl"
}

run_cmd="env TERM=xterm-256color LANG=C.UTF-8 '$exe' run --strategy ddp -n 4 --steps 100000000 \
--model mlp:16,64,64,4 --save ck.st --save-every 20 --metrics m.jsonl --viz ncurses"

# view_case NAME HOW CODE SIGNAL: HOW is "keys" (Ctrl-C typed) or "kill".
view_case() {
  name=$1 how=$2 code=$3 sig=$4
  work="$dir/$name"
  mkdir -p "$work"
  start "$name" "$work" "$run_cmd"
  wait_for "$name" 'rank 3' || { fail "$name: the view did not come up"; return; }
  # well into the run: a checkpoint was saved
  i=0; while [ ! -f "$work/ck.st" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  [ -f "$work/ck.st" ] || { fail "$name: no checkpoint saved"; return; }
  t0=$(date +%s%N)
  if [ "$how" = keys ]; then
    T send-keys -t "$name" C-c
  else
    kill -TERM "$(cat "$dir/$name.pid")"
  fi
  # the program is gone (the pid no longer exists) before the rest of the
  # run could have finished: the run is long, so a program that ignored the
  # signal would still be there after 30 s. How long it took is printed;
  # load changes it, so it is not a limit.
  pid=$(cat "$dir/$name.pid")
  i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 3000 ]; do sleep 0.01; i=$((i + 1)); done
  t1=$(date +%s%N)
  ms=$(( (t1 - t0) / 1000000 ))
  kill -0 "$pid" 2>/dev/null && { fail "$name: still running 30 s after the signal"; return; }
  echo "  $name: ended $ms ms after the signal"
  sane "$name" "$code" || fail "$name: terminal not restored or exit code not $code"
  screen "$name" | grep -q "ddplab run: interrupted by $sig at step" ||
    fail "$name: no 'interrupted by $sig' line"
  [ -z "$(leftovers "$work")" ] || fail "$name: files left: $(leftovers "$work" | tr '\n' ' ')"
  whole_log "$work" || fail "$name: m.jsonl is missing or has a line cut short"
  echo "ok     $name: exit $code in $ms ms, terminal restored, only ck.st and m.jsonl left"
}

view_case ctrl-c keys 130 SIGINT
view_case sigterm kill 143 SIGTERM

# A lesson whose run block trains for ever, its pauses as text frames.
work="$dir/lesson"
mkdir -p "$work/tmp"
cat >"$work/long.md" <<'EOF'
---
id: signal-long
title: A run that never ends
difficulty: beginner
prerequisites:
minutes: 1
track: lessons
---

# A run that never ends

Ctrl-C stops it.

```ddplab
run --strategy ddp -n 2 --steps 100000000 --model mlp:16,32,4 --save ck.st --save-every 5
expect exit 0
```

The end.
EOF
start lesson "$work" "env TMPDIR='$work/tmp' TERM=xterm-256color '$exe' lesson long.md --viz text"
if wait_for lesson 'Ctrl-C stops it'; then
  # the block is training once its checkpoint is in the lesson's scratch
  i=0; while ! ls "$work"/tmp/*/ck.st >/dev/null 2>&1 && [ $i -lt 600 ]; do
    sleep 0.1; i=$((i + 1))
  done
  T send-keys -t lesson C-c
  sane lesson 130 || fail "lesson: terminal not restored or exit code not 130"
  [ -z "$(ls -A "$work/tmp")" ] || fail "lesson: its scratch directory was left behind"
  screen lesson | grep -q "The end" && fail "lesson: it went on after Ctrl-C"
  [ "$failures" -eq 0 ] && echo "ok     lesson: Ctrl-C during a run block"
else
  fail "lesson: did not start"
fi

[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
echo "0 failed"
