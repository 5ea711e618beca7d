#!/bin/sh
# The pane's messages view says what the server received: with secure=yes the sum of the
# four clients' 5 x 5 matrices, its five rows of counts, and each client's vector as masked
# bytes; with secure=no each client's own message, one by one.
fedbn=${FEDBN:-./fedbn}
. "${top_srcdir:-.}/tests/tmux-lib.sh"

tmux -L "$sock" -f /dev/null new-session -d -s t -x 80 -y 40 \
	"env FEDBN_HISTORY=$tmp/history TERM=xterm LANG=C $fedbn; echo EXITED-\$?; sleep 60"
wait_for "fedbn>"
keys 'gen er d=5 edges=5 n=400 seed=3; split horizontal 4 shuffle=no; algo voting:pc' Enter
wait_for "algorithm: voting:pc"
keys 'set secure=yes' Enter
keys 'run' Enter
wait_for "finished after 1 round"
keys m
wait_for "the server received the sum of 4 clients' 5 x 5"
rows=$(screen | grep -cE '^ +( +[0-9]+\.00){5}$')
[ "$rows" = 5 ] || fail "the summed matrix shows $rows rows of five counts, not 5"
screen | grep -q "masked by secure aggregation: 208 bytes of numbers" ||
	fail "a client's vector does not read as masked"
keys q
last_line_is "fedbn>"
keys 'set secure=no' Enter
keys 'run' Enter
wait_for "finished after 1 round"
keys m
wait_for "the server received 4 clients' own messages, one"
screen | grep -q "masked" && fail "secure=no still says masked"
keys q
last_line_is "fedbn>"
echo "PASS: the messages view says what the server received, sum or each client's own"
