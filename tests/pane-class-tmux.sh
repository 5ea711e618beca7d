#!/bin/sh
# The pane in a classroom's 80 x 30 terminal (tmux): the round's sentence wraps to a second
# line; the messages view's 10 x 10 matrices have row and column names and fit, and say what
# the diagonal is; the key help's last line is whole; looking back, the detail view's table
# ends at the round shown; a replay says "replaying" in the top bar, and p pauses it at the
# round on the screen; the guided demo opens the pane at 3 rounds a second.
fedbn=${FEDBN:-./fedbn}
. "${top_srcdir:-.}/tests/tmux-lib.sh"

tmux -L "$sock" -f /dev/null new-session -d -s c -x 80 -y 30 \
	"env FEDBN_HISTORY=$tmp/history TERM=xterm LANG=C $fedbn; echo EXITED-\$?; sleep 60"
target=c
wait_for "fedbn>"
keys 'gen er d=10 edges=10 n=300 seed=1; split horizontal 10; algo notears-admm; set max_rounds=9' Enter
wait_for "algorithm: notears-admm"
keys 'run' Enter
wait_for "finished after 9 rounds"
screen | grep -q '^ round 9: 10 of 10 clients solved their local problem' ||
	fail "the progress view does not show round 9's sentence"
screen | grep -q '^ B_k + beta_k/rho2; the server, handed only their sum' ||
	fail "the sentence does not go on on a second line"

# the messages view: W with its names, ten rows of ten numbers within 80 columns
keys m
wait_for "W, the server's consensus"
screen | grep -qE '^ +X1 +X2 +X3 +X4 +X5 +X6 +X7 +X8 +X9 +X10$' ||
	fail "the matrix has no row of column names"
rows=$(screen | sed -n "/^ W, the server's consensus/,/^ client 1 sent/p" |
	grep -cE '^ X([1-9]|10) +( +(-?[0-9]+\.[0-9]{2}|0)){10}$')
[ "$rows" = 10 ] || fail "W shows $rows rows of a name and ten numbers, not 10"
screen | grep -q "^ the diagonal (up to 0\.[0-9][0-9]) is each variable's weight on itself" ||
	fail "the view does not say what the diagonal is"

# the help's last line is whole
keys '?'
wait_for "Keys of the pane"
screen | grep -q "the algorithm's own)$" || fail "the help's last line is cut"
keys '?'

# back one round: the detail view's table ends at round 8
keys b
wait_for "showing round 8 of 9"
keys v
wait_for "multiplier alpha of the"
table() { screen | sed -n '/^  round /,/^$/p'; }
table | grep -qE '^ +8 +[0-9]' || fail "the detail view's table does not show round 8"
[ "$(table | grep -cE '^ +9 +[0-9]')" = 0 ] ||
	fail "the detail view's table goes on past the round shown"

# a replay from round 1 at one round a second: "replaying", and p pauses where it is
keys '<'
wait_for "showing round 1 of 9"
for _ in $(seq 6); do keys -; done
wait_for "pace: 1 round a second"
keys r
wait_for "replaying"
sleep 1.2
keys p
wait_for "replay paused at round"
shown=$(screen | head -n 1 | sed -n 's/.*showing round \([0-9]*\) of 9.*/\1/p')
screen | grep -q "replay paused at round $shown of 9" ||
	fail "p says another round than the one shown ($shown)"
screen | head -n 1 | grep -q "replaying" && fail "the top bar still says replaying"
keys q
last_line_is "fedbn>"

# the guided demo opens the pane at 3 rounds a second, so that a class can follow the rounds
keys "demo truth=$tmp/t.dot diff=$tmp/d.dot" Enter
for step in 1 2 3 4 5; do
	keys Enter
	sleep 0.3
done
wait_for "3 rounds/s"
sleep 2
r=$(screen | head -n 1 | sed -n 's/.* round \([0-9]*\) of 200.*/\1/p')
[ -n "$r" ] && [ "$r" -ge 2 ] && [ "$r" -le 12 ] ||
	fail "after 2 s at 3 rounds a second the demo's run is at round '$r'"
keys q
wait_for "Enter: next step, q: stop"
keys q
wait_for "demo stopped"
keys C-d
wait_for "EXITED-0"
echo "PASS: the pane fits 80 columns, names the matrix, follows the round, pauses a replay; the demo's pace"
