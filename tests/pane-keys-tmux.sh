#!/bin/sh
# Every key the pane's bottom bar names does what the bar says, on a real terminal (tmux):
# n steps one round, a count then Enter that many, b and f look back and forward, > goes to
# the newest round and < to the first, + and - change the pace, r runs and p pauses, v
# changes the view, ? shows the help (which lists the keys of the bar), q leaves.
fedbn=${FEDBN:-./fedbn}
. "${top_srcdir:-.}/tests/tmux-lib.sh"

# bottom: the bottom bar (the last line)
bottom() {
	screen | grep -v '^$' | tail -n 1
}

# shown: the round the top bar shows while looking back ("N" of "round N of M"), else the newest
shown() {
	screen | head -n 1 | sed -n 's/.* round \([0-9][0-9]*\) of .*/\1/p'
}

cd "$tmp" || exit 99
tmux -L "$sock" -f /dev/null new-session -d -s t -x 100 -y 30 \
	"env FEDBN_HISTORY=$tmp/history LANG=C TERM=xterm $fedbn; sleep 60"
wait_for "fedbn>"
keys 'gen er d=6 n=200 seed=1; split horizontal 3; algo notears-admm' Enter
wait_for "algorithm: notears-admm"
keys 'step' Enter
wait_for " round 1 of "
# the keys the bar names, as it names them
bar=" n step  5 Enter  r run  p pause  b/f back  +/- pace  v view  ? help  q back"
last_line_is "$bar" # the bar is drawn after the round's line
keys n
wait_for " round 2 of "
keys 5 Enter
wait_for " round 7 of "
keys b
wait_for "looking back at round 6 of 7"
keys b
wait_for "looking back at round 5 of 7"
keys f
wait_for "looking back at round 6 of 7"
keys '<'
wait_for "looking back at round 1 of 7"
keys '>'
wait_for "round 7, the newest"
[ "$(shown)" = 7 ] || fail "> did not show the newest round"
keys b
wait_for "looking back at round 6 of 7"
keys '>'
wait_for "round 7, the newest"
keys v
wait_for "correct"
keys v v v v
wait_for "objective"
keys '?'
wait_for "Keys of the pane"
for k in "space, n" "12 Enter" "b, f" "+, -" "<, >" "v, Tab" "q, Esc"; do
	screen | grep -qF -- "$k" || fail "the help does not list '$k'"
done
keys '?'
for _ in $(seq 50); do screen | grep -qF "Keys of the pane" || break; sleep 0.1; done
screen | grep -qF "Keys of the pane" && fail "? did not close the help"
# r at one round a second runs on from the newest; p pauses it there
keys - - - - - - - - -
wait_for "pace: 0.25 rounds a second"
keys + +
wait_for "pace: 1 round a second"
keys r
wait_for " round 8 of "
keys p
wait_for "paused after round"
keys q
last_line_is "fedbn>"
keys 'quit' Enter
exit 0
