#!/bin/sh
# tests/viz_live_tmux.sh DDPLAB: `ddplab run --viz ncurses` watched live in a
# tmux pane of 120x40: the view comes up while the ranks run, answers keys
# (pause, step, help, quit), and after q the run's own report is printed and
# the terminal is back in its normal mode. Exit 77 (skipped) without tmux or
# without the ncurses view.
set -u
exe=$1
command -v tmux >/dev/null 2>&1 || { echo "tmux not installed: skipped"; exit 77; }
"$exe" run --help | grep -q -- "--viz" || exit 77
dir=$(mktemp -d /tmp/ddplab-live-XXXXXX)
sock="$dir/tmux.sock"
session=ddplab-live-$$
cleanup() { tmux -S "$sock" kill-server >/dev/null 2>&1; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- pane:"; cat "$dir/pane.txt" 2>/dev/null; exit 1; }

cmd="TERM=xterm-256color LANG=C.UTF-8 '$exe' run --strategy ddp -n 4 --steps 40 \
--model mlp:16,64,64,4 --bucket-cap-mb 0.004 --viz ncurses --viz-speed 50; \
echo EXIT=\$? > '$dir/rc'; stty -a > '$dir/stty'; sleep 30"
tmux -S "$sock" new-session -d -s "$session" -x 120 -y 40 "sh -c \"$cmd\"" || fail "tmux"

capture() { tmux -S "$sock" capture-pane -p -t "$session" > "$dir/pane.txt"; }
wait_for() { # text, seconds
    i=0
    while [ $i -lt $(( $2 * 10 )) ]; do
        capture
        grep -q -- "$1" "$dir/pane.txt" && return 0
        sleep 0.1; i=$((i + 1))
    done
    return 1
}
key() { tmux -S "$sock" send-keys -t "$session" "$@"; sleep 0.3; }

# the status bar says "rank 0" from the first frame, before any event has
# arrived ("waiting for the run's first events"): wait for the boxes
wait_for "rank 3" 20 || fail "the view did not come up with rank 3's box"
grep -q "waiting for the run's first events" "$dir/pane.txt" && fail "the view never left its waiting screen"
key space          # pause
capture; cp "$dir/pane.txt" "$dir/paused.txt"
key n; key n; key p
key '?'
wait_for "quit" 5 || fail "no help on ?"
key '?'
key q
i=0; while [ ! -s "$dir/rc" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$dir/rc" ] || fail "ddplab did not exit after q"
grep -q "EXIT=0" "$dir/rc" || { cat "$dir/rc"; fail "exit code"; }
capture
grep -q "final loss" "$dir/pane.txt" || fail "the run's own report was not printed after the view"
grep -q -- "-icanon" "$dir/stty" && fail "the terminal was left in raw mode"
grep -q -- " -echo " "$dir/stty" && fail "the terminal was left without echo"
echo "ok"
