#!/bin/sh
# tests/test_viz_curses.sh DRIVER [DDPLAB]: the ncurses view in a real terminal. tmux
# gives the view a pane of a known size; the test types keys into it and
# reads the screen back (capture-pane). Each case runs the driver (a small
# DDP run shown as a replay, tests/viz_curses_driver.c) inside
#   sh -c 'DRIVER; echo EXIT=$?; stty -a (icanon and echo only); echo END; sleep'
# so that after the view ends the pane shows its exit status and whether
# the terminal is back in canonical mode with echo.
#
# Cases: 120x40 (panels, status line, n p N P space ? q, exit 0, terminal
# restored); 70x20 (the "needs at least 80x24" message, exit 2 when it never
# grew; growing the pane shows the view); SIGTERM (exit 143, terminal
# restored); colours (SGR colour codes) and NO_COLOR (none); UTF-8 box
# drawing and, with LANG=C, ASCII only. With DDPLAB (the program), when it
# has the commands: `ddplab replay FILE --viz ncurses` and
# `ddplab run ... --viz ncurses` (live) show the view and restore the terminal.
#
# Exit 77 (skipped) without tmux, or when the driver was built without ncurses.
set -u
driver=${1:?usage: test_viz_curses.sh DRIVER [DDPLAB]}
ddplab=${2:-}
command -v tmux >/dev/null 2>&1 || { echo "skipped: tmux is not installed"; exit 77; }
"$driver" --check || { echo "skipped: built without ncurses"; exit 77; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/ddplab-viz-curses.XXXXXX") || exit 1
# A server of our own (its socket in our directory), without user config.
export TMUX_TMPDIR="$dir"
unset TMUX
T() { tmux -L viz -f /dev/null "$@"; }
cleanup() { T kill-server >/dev/null 2>&1; rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

steps=3 # N / P need at least 2 iterations
[ "${DDPLAB_TEST_QUICK:-}" = 1 ] && steps=2
wait_s=${VIZ_WAIT_S:-30}
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
# ok MESSAGE: says the case passed, when none of its checks failed.
case_start() { case_failures=$failures; }
ok() { [ "$failures" -eq "$case_failures" ] && echo "ok     $*"; }

# start NAME W H [ENV...]: a detached tmux window running the driver.
start() {
  name=$1 w=$2 h=$3
  shift 3
  rm -f "$dir/$name.pid"
  start_cmd "$name" "$w" "$h" "env $* '$driver' --steps $steps --pidfile '$dir/$name.pid'"
}
# start_cmd NAME W H COMMAND: a detached tmux window running COMMAND (sh syntax).
start_cmd() {
  T new-session -d -s "$1" -x "$2" -y "$3" \
    "$4; echo EXIT=\$?; \
     stty -a | tr -s ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo; \
     echo END; sleep 600"
  T set-option -t "$1" window-size manual >/dev/null 2>&1
}
screen() { T capture-pane -p -t "$1"; }
# wait_for NAME REGEX: until the pane shows it (grep -E); 1 on timeout.
wait_for() {
  i=0
  while [ $i -lt $((wait_s * 10)) ]; do
    screen "$1" | grep -Eq -- "$2" && return 0
    sleep 0.1
    i=$((i + 1))
  done
  echo "--- timed out waiting for /$2/ in $1:"
  screen "$1"
  return 1
}
# The cursor's event index on the status line.
event_of() {
  screen "$1" | sed -n 's/.*\(paused\|playing\)  event \([0-9]*\)\/.*/\2/p' | head -n 1
}
keys() { T send-keys -t "$1" -- "$2"; }
# restored NAME CODE: the view ended with CODE (any: whatever it was) and
# the terminal is sane.
restored() {
  wait_for "$1" '^END$' || return 1
  s=$(screen "$1")
  want="EXIT=$2"
  [ "$2" = any ] && want='EXIT=[0-9]*'
  echo "$s" | grep -qx "$want" || { echo "$s"; echo "(wanted EXIT=$2)"; return 1; }
  echo "$s" | grep -qx icanon && echo "$s" | grep -qx echo || {
    echo "$s"; echo "(the terminal was left without icanon / echo)"; return 1; }
  ! echo "$s" | grep -qx -e -icanon -e -echo
}

# A tmux window that lasts the whole test keeps the server up between cases.
if ! T new-session -d -s keep 'sleep 3600' 2>"$dir/probe.err"; then
  echo "skipped: tmux cannot start here: $(cat "$dir/probe.err")"
  exit 77
fi

# --- 120x40: panels, keys, help, quit ------------------------------------
case_start
start main 120 40
if wait_for main 'paused  event 0/[0-9]+'; then
  s=$(screen main)
  for want in 'ddp  mlp:16,32,32,4  R=4' 'rank 0' 'rank 3' 'q quit'; do
    echo "$s" | grep -q -- "$want" || fail "120x40: '$want' is not on screen"
  done
  [ "$(echo "$s" | wc -l)" -ge 39 ] || fail "120x40: the screen has fewer than 39 lines"
  keys main n
  wait_for main 'paused  event 1/' || fail "n did not step to event 1"
  keys main p
  wait_for main 'paused  event 0/' || fail "p did not step back to event 0"
  keys main N
  wait_for main 'paused  event [1-9][0-9]*/' || fail "N did not move to iteration 1"
  e1=$(event_of main)
  keys main N
  wait_for main "paused  event [0-9]+/" >/dev/null
  sleep 0.3
  e2=$(event_of main)
  [ -n "$e1" ] && [ -n "$e2" ] && [ "$e2" -gt "$e1" ] || fail "N: iteration starts $e1 then $e2"
  keys main P
  wait_for main "paused  event $e1/" || fail "P did not go back to event $e1"
  keys main ' '
  wait_for main 'playing  event' || fail "space did not start playing"
  keys main ' '
  wait_for main 'paused  event' || fail "space did not pause"
  keys main '?'
  wait_for main 'play / pause' || fail "? did not show the help"
  keys main '?'
  sleep 0.3
  screen main | grep -q 'play / pause' && fail "? did not hide the help"
  keys main g
  wait_for main 'go to: _' || fail "g did not ask for a target"
  keys main 5
  keys main Enter
  wait_for main 'paused  event 5/' || fail "g 5 Enter did not go to event 5"
  keys main q
  restored main 0 || fail "q: exit status or terminal state"
  ok "120x40: panels, n p N P space ? g q, terminal restored"
else
  fail "120x40: the view never showed its status line"
fi
T kill-session -t main 2>/dev/null

# --- 70x20: too small -------------------------------------------------------
case_start
start small 70 20
if wait_for small 'ddplab needs at least 80x24'; then
  screen small | grep -q 'the terminal is 70x20' || fail "70x20: the message names another size"
  keys small q
  restored small 2 || fail "70x20: a view that never fitted must exit 2"
  T capture-pane -p -J -t small |
    grep -q 'EINVAL: the terminal is 70x20; ddplab needs at least 80x24' ||
    fail "70x20: no reason printed after quitting"
  ok "70x20: needs at least 80x24, exit 2"
else
  fail "70x20: no size message"
fi
T kill-session -t small 2>/dev/null

# --- growing and shrinking --------------------------------------------------
case_start
start grow 70 20
if wait_for grow 'needs at least 80x24'; then
  T resize-window -t grow -x 100 -y 30
  wait_for grow 'paused  event 0/' || fail "resize to 100x30: the view did not appear"
  T resize-window -t grow -x 79 -y 30
  wait_for grow 'the terminal is 79x30' || fail "resize to 79x30: no size message"
  T resize-window -t grow -x 80 -y 24
  wait_for grow 'paused  event 0/' || fail "resize to 80x24: the view did not appear"
  keys grow q
  restored grow 0 || fail "resize: exit status or terminal state"
  ok "resize: message below 80x24, the view from 80x24 up"
else
  fail "resize: no size message at 70x20"
fi
T kill-session -t grow 2>/dev/null

# --- SIGTERM ----------------------------------------------------------------
case_start
start term 120 40
if wait_for term 'paused  event 0/'; then
  kill -TERM "$(cat "$dir/term.pid")"
  restored term 143 || fail "SIGTERM: exit status or terminal state"
  ok "SIGTERM: exit 143, terminal restored"
else
  fail "SIGTERM: the view never started"
fi
T kill-session -t term 2>/dev/null

# --- colours, monochrome, UTF-8, ASCII --------------------------------------
esc=$(printf '\033')
# An SGR sequence that sets a foreground colour (30-37, or 38;5;N / 38;2;...).
sgr_colour="$esc\[\([0-9]*;\)*\(3[0-7]\|38\)[;m]"
case_start
start colour 120 40
if wait_for colour 'paused  event 0/'; then
  T capture-pane -e -p -t colour | grep -q "$sgr_colour" ||
    fail "colour: no foreground colour on screen"
  screen colour | grep -q '[─│┌┐└┘├┤]' || fail "UTF-8: no box drawing on screen"
  keys colour q
  restored colour 0 || fail "colour: exit"
  ok "colour and UTF-8 box drawing"
fi
T kill-session -t colour 2>/dev/null

case_start
start mono 120 40 NO_COLOR=1 LANG=C LC_ALL=C
if wait_for mono 'paused  event 0/'; then
  e=$(T capture-pane -e -p -t mono)
  echo "$e" | grep -q "$sgr_colour" &&
    fail "NO_COLOR: colours on screen"
  echo "$e" | grep -q "$esc\[[0-9;]*7[0-9;]*m" || fail "NO_COLOR: no reverse video (status line)"
  screen mono | LC_ALL=C grep -q "$(printf '[\200-\377]')" && fail "LANG=C: non-ASCII on screen"
  keys mono q
  restored mono 0 || fail "monochrome: exit"
  ok "monochrome (NO_COLOR) and ASCII (LANG=C)"
fi
T kill-session -t mono 2>/dev/null

# --- the ddplab program, once it has the commands ---------------------------
if [ -n "$ddplab" ] && "$ddplab" replay --help >/dev/null 2>&1; then
  if "$ddplab" run --strategy ddp -n 4 --data blobs --steps $steps \
       --trace "$dir/run.ddptrace" >"$dir/run.out" 2>&1; then
    case_start
    start_cmd replay 120 40 "'$ddplab' replay '$dir/run.ddptrace' --viz ncurses"
    if wait_for replay '(playing|paused)  event [0-9]+/[0-9]+'; then
      keys replay n
      wait_for replay 'paused  event [0-9]+/' || fail "ddplab replay: n did not pause"
      keys replay q
      restored replay 0 || fail "ddplab replay: exit status or terminal state"
      ok "ddplab replay --viz ncurses"
    else
      fail "ddplab replay --viz ncurses: no view"
    fi
    T kill-session -t replay 2>/dev/null
  else
    fail "ddplab run --trace: $(cat "$dir/run.out")"
  fi
  if "$ddplab" run --help 2>&1 | grep -q -- '--viz'; then
    case_start
    start_cmd live 120 40 \
      "'$ddplab' run --strategy ddp -n 4 --data blobs --steps $steps --viz ncurses"
    if wait_for live '(playing|paused|waiting)  event [0-9]+/'; then
      keys live q
      restored live any || fail "ddplab run --viz ncurses: terminal state"
      ok "ddplab run --viz ncurses (live)"
    else
      fail "ddplab run --viz ncurses: no view"
    fi
    T kill-session -t live 2>/dev/null
  fi
else
  echo "(ddplab replay is not there yet: the program's own view is not checked)"
fi

if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all ncurses view checks passed"
