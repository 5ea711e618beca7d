#!/bin/sh
# The interactive shell on a real terminal (tmux): tab completion of commands, first words,
# key= names, algorithms, their parameters and values; Ctrl-C clears the line and keeps the
# shell; history is written to $FEDBN_HISTORY; Ctrl-D quits.  The shell starts with one line
# saying how to begin, and the demo waits before each step for Enter (go on) or q (stop).
fedbn=${FEDBN:-./fedbn}
. "${top_srcdir:-.}/tests/tmux-lib.sh"

# widest LIMIT: no line on the screen is longer than LIMIT (help wraps itself, at word
# boundaries, before the terminal would cut a word)
widest() {
	long=$(screen | awk -v m="$1" 'length($0) > m')
	[ -z "$long" ] && return 0
	echo "FAIL: lines longer than $1 columns:"
	echo "$long"
	exit 1
}

# joined_has TEXT: the screen with wrapped lines joined contains TEXT (10 s at most)
joined_has() {
	for _ in $(seq 100); do
		tmux -L "$sock" capture-pane -p -J -t "$target" | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	fail "timed out waiting for '$1'"
}

cd "$tmp" || exit 99
tmux -L "$sock" -f /dev/null new-session -d -s t -x 100 -y 30 \
	"env FEDBN_HISTORY=$tmp/history TERM=xterm $fedbn; echo EXITED-\$?; sleep 30"
wait_for "fedbn>"
[ "$(screen | grep -v '^$' | head -n 1)" = \
	"type 'help' for the commands or 'demo' for a guided run; Ctrl-D leaves" ] ||
	fail "the shell did not start with how to begin"
keys 'spl' Tab
last_line_is "fedbn> split"
keys 'hor' Tab
last_line_is "fedbn> split horizontal"
keys '4 shu' Tab
last_line_is "fedbn> split horizontal 4 shuffle="
keys C-c
last_line_is "fedbn>"
keys 'echo still alive' Enter
wait_for "still alive"
keys 'gen er d=5 n=50 seed=3' Enter
wait_for "generated 50 rows x 5 variables"
keys 'demo' Enter
joined_has "that DAG is the truth to recover. [Enter: next step, q: stop]"
sleep 1
screen | grep -q "generated 300 rows" && fail "the demo ran its first step without waiting"
keys Enter
wait_for "generated 300 rows x 10 variables"
joined_has "no client sees another's rows. [Enter: next step, q: stop]"
keys q
wait_for "demo stopped"
last_line_is "fedbn>"
screen | grep -q "split 300 rows" && fail "the demo went on after q"
keys 'lo' Tab
last_line_is "fedbn> load"
keys C-u
# algorithm names, the chosen algorithm's parameters and their values complete from the
# algorithm tables
keys 'algo notears-a' Tab
last_line_is "fedbn> algo notears-admm"
keys Enter
wait_for "algorithm: notears-admm:"
keys 'set la' Tab
last_line_is "fedbn> set lambda="
keys '0.1 solver=l' Tab
last_line_is "fedbn> set lambda=0.1 solver=lbfgsb"
keys C-u 'help algo fedpc-si' Tab
last_line_is "fedbn> help algo fedpc-simple"
keys C-u
keys 'algo avg' Tab
last_line_is "fedbn> algo avg:"
keys 'no' Tab
last_line_is "fedbn> algo avg:notears"
keys C-u 'split horizontal 2 sizes=dir' Tab
last_line_is "fedbn> split horizontal 2 sizes=dirichlet"
# help wraps to the terminal's width, whatever it is
keys C-u C-l 'help algo fedpc' Enter
wait_for "  extend "
widest 98
tmux -L "$sock" resize-window -t t -x 70 -y 30
keys C-l 'help algo pc' Enter
wait_for "  compat "
widest 68
keys C-u C-d
wait_for "EXITED-0"
grep -qx 'echo still alive' "$tmp/history" ||
	{ echo "FAIL: the history file lacks 'echo still alive'"; cat "$tmp/history"; exit 1; }
grep -q 'split horizontal 4' "$tmp/history" &&
	{ echo "FAIL: a line cleared by Ctrl-C went into the history"; exit 1; }
echo "PASS: start-up line, completion, Ctrl-C, guided demo, history and Ctrl-D at the prompt"
