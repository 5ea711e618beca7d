#!/bin/sh
# Without the pane, a round that runs longer than the heartbeat's period writes a line on
# standard error naming the run and the round (FEDBN_HEARTBEAT sets the period short here);
# --quiet writes none, and standard output holds only the rounds' lines.
fedbn=${FEDBN:-./fedbn}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
script='gen er d=8 n=500 seed=1; split horizontal 3; algo gs-feddag; run rounds=2'
fail=0
FEDBN_HEARTBEAT=0.05 "$fedbn" --no-pane -c "$script" > "$tmp/out" 2> "$tmp/err" ||
	{ echo "FAIL: the run failed"; cat "$tmp/err"; exit 1; }
grep -qE '^run 1 \(gs-feddag\): round [12] under way for [0-9.]+ s$' "$tmp/err" ||
	{ echo "FAIL: no heartbeat on standard error:"; cat "$tmp/err"; fail=1; }
grep -q 'under way' "$tmp/out" && { echo "FAIL: the heartbeat went to standard output"; fail=1; }
[ "$(grep -c '^round ' "$tmp/out")" = 2 ] || { echo "FAIL: not two rounds' lines"; fail=1; }
FEDBN_HEARTBEAT=0.05 "$fedbn" --no-pane --quiet -c "$script" > "$tmp/out2" 2> "$tmp/err2" ||
	{ echo "FAIL: the quiet run failed"; cat "$tmp/err2"; exit 1; }
[ -s "$tmp/err2" ] && { echo "FAIL: --quiet still wrote on standard error:"; cat "$tmp/err2"; fail=1; }
# the same lines but for the seconds each round took
strip() { sed 's/ [0-9.]* s$//' "$1"; }
[ "$(strip "$tmp/out")" = "$(strip "$tmp/out2")" ] ||
	{ echo "FAIL: --quiet changed standard output"; fail=1; }
[ $fail = 0 ] || exit 1
echo "PASS: a long round's heartbeat on standard error, none with --quiet"
