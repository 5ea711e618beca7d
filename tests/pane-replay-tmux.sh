#!/bin/sh
# Teaching in the pane (tmux): after a finished NOTEARS-ADMM run, b three times shows the
# round three back in every view (the top bar, the round's sentence, the table, the messages
# view), and the messages view shows what client 2 sent: its size, and its B_k matrix in
# numbers; + and - set a pace shown in rounds a second, and r replays from the round looked
# back at, one round a second at that pace, back to the newest; the clients view reads the
# round shown.
fedbn=${FEDBN:-./fedbn}
. "${top_srcdir:-.}/tests/tmux-lib.sh"

tmux -L "$sock" -f /dev/null new-session -d -s r -x 110 -y 40 \
	"env FEDBN_HISTORY=$tmp/history TERM=xterm LANG=C $fedbn; echo EXITED-\$?; sleep 60"
target=r
wait_for "fedbn>"
keys 'gen er d=5 edges=5 n=300 seed=4; split horizontal 3; algo notears-admm; set max_rounds=8' Enter
wait_for "algorithm: notears-admm"
keys 'run' Enter
wait_for "finished after 8 rounds"
screen | head -n 1 | grep -q ' round 8 of 8 ' || fail "the run did not end at round 8"
screen | grep -q '^ round 8: 3 of 3 clients solved their local problem' ||
	fail "the progress view does not show round 8's sentence"

# three rounds back: every view shows round 5
keys b b b
wait_for "showing round 5 of 8"
screen | grep -q '^ round 5: 3 of 3 clients solved' ||
	fail "the progress view does not show round 5's sentence after b b b"
[ "$(screen | grep -cE '^ +[678] +[0-9]+ ')" = 0 ] ||
	fail "the table still shows rounds after the one looked back at"
screen | grep -qE '^ +5 +[0-9]+ ' || fail "the table does not end at round 5"
keys m
wait_for "client 2 sent 216 B, received 200 B"
screen | grep -q "round 5: 3 of 3 clients" || fail "the messages view is not on round 5"
screen | grep -q "B_k + beta_k/rho2, the client's own solution" ||
	fail "the messages view does not show client 2's matrix"
# client 2's paragraph: its size line, a heading, the column names, then five rows of a
# variable's name and five numbers
sed_b='/^ client 2 sent/,/^ client 3/p'
screen | sed -n "$sed_b" | grep -qE '^ +X1 +X2 +X3 +X4 +X5$' ||
	fail "client 2's B_k has no row of column names"
rows=$(screen | sed -n "$sed_b" | grep -cE '^ X[1-5] +( +(-?[0-9]+\.[0-9]{2}|0)){5}$')
[ "$rows" = 5 ] || fail "client 2's B_k is $rows rows of a name and five numbers, not 5"
keys f
wait_for "showing round 6 of 8"
screen | grep -q "round 6: " || fail "f did not move the messages view to round 6"
keys BTab
wait_for "clients took part"
screen | grep -q "round 6: 3 of 3 clients took part" || fail "the clients view is not on round 6"

# the pace: from as fast as they come down to 1 round a second, shown in the top bar; r
# replays from round 6 at that pace
for _ in $(seq 6); do keys -; done
wait_for "pace: 1 round a second"
keys - +
wait_for "1 round/s"
keys '<'
wait_for "showing round 1 of 8"
keys r
sleep 1.5
shown=$(screen | head -n 1 | sed -n 's/.*showing round \([0-9]*\) of 8.*/\1/p')
case $shown in
2 | 3) ;;
*) fail "after 1.5 s at 1 round a second the replay shows round '$shown', not 2 or 3" ;;
esac
keys + + + +
wait_for "16 rounds/s"
wait_for "replayed to the last round"
screen | head -n 1 | grep -q ' round 8 of 8 ' || fail "the replay did not end at the newest round"
keys q
last_line_is "fedbn>"
keys C-d
wait_for "EXITED-0"
echo "PASS: the pane steps back, shows the messages and replays at a pace"
