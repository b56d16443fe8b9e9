#!/bin/sh
# tests/test_lesson_tmux.sh DDPLAB FIXTURES WxH: the full-screen lesson
# player in a terminal of W x H (tmux). `ddplab` alone opens the menu of
# the fixtures (DDPLAB_LESSONS=FIXTURES); the test
#   - moves in the menu with the arrow keys and filters it with /;
#   - plays three lessons with key presses (play-tmux, play-ddp, play-hang),
#     and at every pause checks that the narrative, the view and the status
#     line are on screen together;
#   - answers wrong on purpose and checks that the feedback stays on screen
#     (after scrolling too) until the learner goes on;
#   - checks that q goes up exactly one level: view -> lesson -> (a question
#     before leaving with questions open) -> menu -> the end;
#   - leaves a lesson half-way and checks that it resumes where it was;
#   - checks the exit code, and that the terminal is back in canonical mode
#     with echo.
# Exit 77 (skipped) without tmux or without ncurses.
set -u
exe=${1:?usage: test_lesson_tmux.sh DDPLAB FIXTURES WxH}
fixtures=${2:?usage: test_lesson_tmux.sh DDPLAB FIXTURES WxH}
size=${3:-80x24}
W=${size%x*}
H=${size#*x}
command -v tmux >/dev/null 2>&1 || { echo "skipped: tmux is not installed"; exit 77; }
"$exe" replay --help | grep -q "ncurses" || { echo "skipped: no ncurses view"; exit 77; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/ddplab-lesson-tmux.XXXXXX") || exit 1
export TMUX_TMPDIR="$dir"
unset TMUX
T() { tmux -L lesson -f /dev/null "$@"; }
cleanup() {
  T kill-server >/dev/null 2>&1
  rm -rf "$dir" 2>/dev/null || { sleep 1; rm -rf "$dir"; }
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
  echo "FAILED ($size): $*"
  echo "--- pane:"
  T capture-pane -p -t lesson 2>/dev/null
  exit 1
}
screen() { T capture-pane -p -t lesson; }
status_line() { screen | sed -n "${H}p"; }
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
# wait_status REGEX [SECONDS]: the same for the status line (the last row).
wait_status() {
  i=0
  while [ $i -lt $(( ${2:-30} * 10 )) ]; do
    status_line | grep -Eq -- "$1" && return 0
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}
keys() { T send-keys -t lesson -- "$@"; }
# A pause: the narrative's title bar, the view (a rank's box and the view's
# title line), the caption and the status line's keys, all on one screen.
check_pause() {
  wait_for 'event [0-9]+/[0-9]+' 60 || fail "$1: no view came up"
  # a learner pages through the narrative (Enter) until the caption
  i=0
  while ! screen | grep -q -- "$2" && status_line | grep -q 'Enter more' && [ $i -lt 20 ]; do
    keys Enter; sleep 0.2; i=$((i + 1))
  done
  wait_for "$2" 30 || fail "$1: the caption '$2' is not on screen"
  s=$(screen)
  echo "$s" | grep -Eq "Section [0-9]+ of [0-9]+" || fail "$1: no narrative pane"
  echo "$s" | grep -Eq "View, run [0-9]+ of [0-9]+" || fail "$1: no view pane title"
  echo "$s" | grep -Eq "event [0-9]+/[0-9]+" || fail "$1: the view shows no frame (its header)"
  echo "$s" | grep -Eq "rank 1|r1 " || fail "$1: the view shows no rank"
  status_line | grep -q "q menu" || fail "$1: the status line is not on screen"
  status_line | grep -q "? help" || fail "$1: the status line lists no help key"
  [ "$(screen | wc -l)" -le "$H" ] || fail "$1: the screen is taller than the terminal"
}

cmd="env TERM=xterm-256color LANG=C.UTF-8 XDG_STATE_HOME='$dir/state' \
DDPLAB_LESSONS='$fixtures' '$exe'; echo EXIT=\$?; \
stty -a | tr -s ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo; \
echo END; sleep 600"
if ! T new-session -d -s lesson -x "$W" -y "$H" "$cmd" 2>"$dir/err"; then
  echo "skipped: tmux cannot start here: $(cat "$dir/err")"
  exit 77
fi
T set-option -t lesson window-size manual >/dev/null 2>&1

# --- The menu: arrow keys and /
wait_for 'ddplab lessons: 5' || fail "the menu did not come up"
screen | grep -q 'Spot the bug' || fail "the menu has no 'Spot the bug' section"
status_line | grep -q '/ search' || fail "the menu's status line lists no search"
wait_for 'ddplab lesson play-ddp ' 30 || fail "the first lesson is not selected"
keys Down Down Down
wait_for 'ddplab lesson play-tmux ' 30 || fail "Down did not move the selection"
keys Up
wait_for 'ddplab lesson play-grade ' 30 || fail "Up did not move the selection"
keys / h a n g
wait_for '\(1 shown\)' 30 || fail "/ hang did not filter the menu"
screen | grep -q 'play-tmux' && fail "the filter kept play-tmux"
keys Enter Escape
wait_for '\(5 shown\)' 30 || fail "Esc did not clear the search"

# --- Lesson 1, play-tmux: a pause, q one level up, a wrong answer
keys g Down Down Down Enter
check_pause play-tmux 'Here the first bucket launches.'
keys Tab
wait_status '^ *[0-9]+/[0-9]+ right  VIEW' 30 || fail "Tab did not give the view the keys"
keys n
sleep 0.3
keys q
wait_status 'Enter (go on|more)' 30 || fail "q in the view did not go back to the lesson"
screen | grep -q 'Here the first bucket launches.' || fail "q in the view left the lesson"
keys Enter
while status_line | grep -q 'Enter more'; do keys Enter; sleep 0.2; done
wait_for 'Your answer \(a number\): _' 30 || fail "no question after the pause"
keys ' ' ']' # the view's keys: never typed into the answer
sleep 0.3
screen | grep -q 'Your answer (a number): _' || fail "view keys reached the answer field"
keys q
wait_status 'Leave the lesson\?' 30 || fail "q with a question open did not ask first"
keys n
wait_for 'Your answer \(a number\): _' 30 || fail "n did not stay in the lesson"
keys 3 Enter
wait_for 'Not quite. The answer: 2' 30 || fail "a wrong answer was not graded against the fact"
wait_for 'Two steps, two iterations.' 30 || fail "the explanation is missing"
keys Down Down
sleep 0.3
screen | grep -q 'Not quite. The answer: 2' || fail "the feedback went away on scrolling"
keys Enter
wait_for 'End of the lesson: 0 of 1 question answered right' 30 || fail "no summary"
screen | grep -q 'm: review what I missed' || fail "the summary offers no review"
keys q
wait_for 'ddplab lessons: 5, 1 finished' 30 || fail "q at the end did not go back to the menu"

# --- Lesson 2, play-ddp: two pauses; left half-way, then resumed
keys g Enter
check_pause play-ddp 'The first bucket launches.'
keys Enter
while status_line | grep -q 'Enter more'; do keys Enter; sleep 0.2; done
check_pause play-ddp 'Iteration 2 uses the rebuilt plan.'
keys Enter
while status_line | grep -q 'Enter more'; do keys Enter; sleep 0.2; done
wait_for 'Question 1 of' 30 || fail "play-ddp: no first question"
keys 3 Enter
wait_for 'Right: 3' 30 || fail "play-ddp: a right answer was not graded right"
keys Enter
wait_for 'Question 2 of' 30 || fail "play-ddp: no second question"
section=$(screen | sed -n 's/.*Section \([0-9]*\) of [0-9]*.*/\1/p' | head -1)
[ -n "$section" ] || fail "play-ddp: no section number on screen"
keys q
wait_status 'Leave the lesson\?' 30 || fail "play-ddp: q did not ask before leaving"
keys y
wait_for 'started: Enter resumes at section' 30 || fail "play-ddp: the menu does not say it can resume"
keys Enter
wait_for "resumed at section $section " 30 || fail "play-ddp: did not resume at section $section"
wait_for "Section $section of" 30 || fail "play-ddp: the narrative is not at section $section"
wait_for 'Question 2 of' 30 || fail "play-ddp: the resumed lesson is not at its question"
keys q y
wait_for 'ddplab lessons: 5' 30 || fail "play-ddp: did not go back to the menu"

# --- Lesson 3, play-hang: a run without a pause, a choice, a run with a pause
keys G Enter
wait_for 'View, run 1 of 2' 60 || fail "play-hang: the first run's output is not shown"
while status_line | grep -q 'Enter more'; do keys Enter; sleep 0.2; done
keys Enter
while status_line | grep -q 'Enter more'; do keys Enter; sleep 0.2; done
wait_for 'Your answer \(a letter\): _' 30 || fail "play-hang: no choice question"
keys Enter Enter # skipped: Enter twice on the empty field
wait_for 'Skipped. The answer:' 30 || fail "play-hang: skipping was not said"
keys Enter
while status_line | grep -q 'Enter more'; do keys Enter; sleep 0.2; done
check_pause play-hang 'The last iteration: rank 1 shadows'
keys q y
wait_for 'ddplab lessons: 5' 30 || fail "play-hang: did not go back to the menu"

# --- q in the menu ends the program, the terminal restored
keys q
wait_for '^END$' 30 || fail "q in the menu did not end the program"
s=$(screen)
echo "$s" | grep -q '^EXIT=0$' || fail "ddplab did not exit 0"
echo "$s" | grep -qx 'icanon' || fail "the terminal was left out of canonical mode"
echo "$s" | grep -qx 'echo' || fail "the terminal was left without echo"
[ -s "$dir/state/ddplab/progress.json" ] || fail "no progress file"
grep -q '"play-tmux"' "$dir/state/ddplab/progress.json" || fail "play-tmux is not in the progress"

# SIGTERM while a lesson plays, in the full screen and in the text view:
# the scratch directory is removed, the terminal restored, and the signal
# ends the process
mkdir -p "$dir/tmp"
for viz in ncurses text; do
  rm -f "$dir/pid"
  cmd2="env TERM=xterm-256color LANG=C.UTF-8 TMPDIR='$dir/tmp' XDG_STATE_HOME='$dir/state2' \
sh -c 'echo \$\$ > \"$dir/pid\"; exec \"$exe\" lesson \"$fixtures/play-ddp.md\" --viz $viz'; \
echo EXIT=\$?; stty -a | tr -s ' ;' '\\n\\n' | grep -x -e icanon -e -icanon; echo END; sleep 600"
  T new-session -d -s "term$viz" -x "$W" -y "$H" "$cmd2" || fail "tmux: a second session"
  want='Enter: go on'
  [ "$viz" = ncurses ] && want='event [0-9]*/[0-9]*'
  i=0
  while ! T capture-pane -p -t "term$viz" | grep -q "$want" && [ $i -lt 300 ]; do
    sleep 0.1; i=$((i + 1))
  done
  T capture-pane -p -t "term$viz" | grep -q "$want" || fail "$viz: the lesson did not reach its pause"
  ls "$dir/tmp" | grep -q '^ddplab-lesson-' || fail "$viz: no scratch directory while the lesson plays"
  kill -TERM "$(cat "$dir/pid")"
  i=0
  while ! T capture-pane -p -t "term$viz" | grep -qx 'END' && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
  done
  T capture-pane -p -t "term$viz" | grep -qx 'EXIT=143' || fail "$viz: SIGTERM did not end the lesson (exit 143)"
  T capture-pane -p -t "term$viz" | grep -qx 'icanon' || fail "$viz: the terminal was not restored"
  [ -z "$(ls "$dir/tmp")" ] || fail "$viz: the scratch directory was left behind: $(ls "$dir/tmp")"
done
echo "ok: lessons played in a $size terminal"
