#!/bin/sh
# tests/test_lesson_tmux.sh DDPLAB FIXTURES: a lesson played in a terminal.
# `ddplab` alone (the lessons' menu, with DDPLAB_LESSONS=FIXTURES) runs in a
# tmux pane of 120x40; the test chooses the fixture play-tmux by its id,
# waits for the ncurses view at the lesson's pause (the status line, the
# caption and the "q: back to the lesson" hint on screen), presses q, answers
# the question, reads the grading, quits the menu, and checks the exit code
# and that the terminal is back in canonical mode with echo. Then a lesson
# in the text view gets SIGTERM while it waits at a pause: it ends with the
# signal, and its scratch directory is gone. Exit 77 (skipped) without tmux
# or without the ncurses view.
set -u
exe=${1:?usage: test_lesson_tmux.sh DDPLAB FIXTURES}
fixtures=${2:?usage: test_lesson_tmux.sh DDPLAB FIXTURES}
command -v tmux >/dev/null 2>&1 || { echo "skipped: tmux is not installed"; exit 77; }
"$exe" lesson --help >/dev/null 2>&1 || { echo "skipped: no lesson command"; exit 77; }
"$exe" replay --help | grep -q "ncurses" || exit 77

dir=$(mktemp -d "${TMPDIR:-/tmp}/ddplab-lesson-tmux.XXXXXX") || exit 1
export TMUX_TMPDIR="$dir"
unset TMUX
T() { tmux -L lesson -f /dev/null "$@"; }
cleanup() { T kill-server >/dev/null 2>&1; rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
  echo "FAILED: $*"
  echo "--- pane:"
  T capture-pane -p -t lesson 2>/dev/null
  exit 1
}
screen() { T capture-pane -p -t lesson; }
# wait_for REGEX [SECONDS]: until the pane shows it (grep -E); 1 on timeout.
wait_for() {
  i=0
  while [ $i -lt $(( ${2:-30} * 10 )) ]; do
    screen | grep -Eq -- "$1" && return 0
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}
keys() { T send-keys -t lesson -- "$@"; }

cmd="env TERM=xterm-256color LANG=C.UTF-8 XDG_STATE_HOME='$dir/state' \
DDPLAB_LESSONS='$fixtures' '$exe'; echo EXIT=\$?; \
stty -a | tr -s ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo; \
echo END; sleep 600"
if ! T new-session -d -s lesson -x 120 -y 40 "$cmd" 2>"$dir/err"; then
  echo "skipped: tmux cannot start here: $(cat "$dir/err")"
  exit 77
fi
T set-option -t lesson window-size manual >/dev/null 2>&1

# The menu, with the fixtures by section
wait_for 'Choose a lesson by number or id' || fail "the menu did not come up"
s=$(screen)
echo "$s" | grep -q 'play-tmux' || fail "play-tmux is not in the menu"
echo "$s" | grep -q '^Spot the bug' || fail "the menu has no 'Spot the bug' section"

# Choose the lesson: it runs its block and opens the view at its pause
keys play-tmux Enter
wait_for 'paused  event [0-9]+/' || fail "the ncurses view did not open at the pause"
s=$(screen)
echo "$s" | grep -q 'q: back to the lesson' || fail "no 'q: back to the lesson' hint"
echo "$s" | grep -q 'Here the first bucket launches.' || fail "the pause's caption is missing"
echo "$s" | grep -q 'rank 1' || fail "rank 1's box is missing"
[ "$(echo "$s" | wc -l)" -ge 39 ] || fail "the view does not fill the 40 lines"
keys n
wait_for 'paused  event [0-9]+/' 5 || fail "n did not keep the view"
keys q

# Back in the lesson: the question
wait_for 'Your answer \(a number; Enter skips\)' || fail "no question after q"
keys 3 Enter
wait_for 'Not quite. The answer: 2' || fail "a wrong answer was not graded against the fact"
wait_for 'Two steps, two iterations.' 5 || fail "the explanation is missing"
wait_for 'End of the lesson: 0 of 1 question answered right' || fail "no end of the lesson"

# The menu again, with the lesson marked finished; q quits
wait_for '\[x\] play-tmux' || fail "the menu does not show play-tmux as finished"
keys q Enter
wait_for '^END$' || fail "ddplab did not end after q"
s=$(screen)
echo "$s" | grep -qx 'EXIT=0' || fail "exit code (wanted 0)"
echo "$s" | grep -qx 'icanon' && echo "$s" | grep -qx 'echo' ||
  fail "the terminal was left without icanon / echo"
[ -s "$dir/state/ddplab/progress.json" ] || fail "no progress file"
grep -q '"play-tmux"' "$dir/state/ddplab/progress.json" || fail "play-tmux is not in the progress"

# SIGTERM while the lesson waits at a pause (text view): the scratch
# directory is removed, and the signal ends the process
mkdir -p "$dir/tmp"
cmd2="env TERM=xterm-256color TMPDIR='$dir/tmp' XDG_STATE_HOME='$dir/state' \
sh -c 'echo \$\$ > \"$dir/pid\"; exec \"$exe\" lesson \"$fixtures/play-ddp.md\" --viz text'; \
echo EXIT=\$?; echo END; sleep 600"
T new-session -d -s term -x 120 -y 40 "$cmd2" || fail "tmux: a second session"
i=0
while ! T capture-pane -p -t term | grep -q 'Enter: go on' && [ $i -lt 300 ]; do
  sleep 0.1; i=$((i + 1))
done
T capture-pane -p -t term | grep -q 'Enter: go on' || fail "the text view did not wait at the pause"
ls "$dir/tmp" | grep -q '^ddplab-lesson-' || fail "no scratch directory while the lesson plays"
kill -TERM "$(cat "$dir/pid")"
i=0
while ! T capture-pane -p -t term | grep -qx 'END' && [ $i -lt 100 ]; do
  sleep 0.1; i=$((i + 1))
done
T capture-pane -p -t term | grep -qx 'EXIT=143' || fail "SIGTERM did not end the lesson (exit 143)"
[ -z "$(ls "$dir/tmp")" ] || fail "the scratch directory was left behind: $(ls "$dir/tmp")"
echo "ok"
