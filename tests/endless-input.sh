#!/bin/sh
# Endless inputs: /dev/zero as a dataset, a graph, a network, a table or a script is refused
# with one sentence naming the longest line fedbn reads, the session kept; Ctrl-C stops a
# load that waits on an endless pipe; under a memory limit an endless pipe of short lines is
# refused with a sentence, not "out of memory" and an exit.
fedbn=${FEDBN:-./fedbn}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
long="line 1 is longer than 16 MiB, the longest line fedbn reads"
# expect OUT TEXT: OUT holds a line holding TEXT
expect() {
	printf '%s\n' "$1" | grep -qF "$2" || { echo "FAIL: no line: $2"; printf '%s\n' "$1" | tail -5; fail=1; }
}
out=$(timeout 60 "$fedbn" --no-pane -c "gen er d=3 n=10 seed=4" -c "load /dev/zero" \
	-c "load /dev/zero delim=comma" -c "truth load /dev/zero" -c "sample /dev/zero" \
	-c "plot /dev/zero x=a y=b" -c "source /dev/zero" -c "info" -c "echo alive" 2>&1)
status=$?
[ $status = 1 ] || { echo "FAIL: /dev/zero commands: exit status $status, expected 1"; fail=1; }
[ "$(printf '%s\n' "$out" | grep -cF "cannot read '/dev/zero': $long")" = 5 ] ||
	{ echo "FAIL: not five refusals of /dev/zero's line"; printf '%s\n' "$out"; fail=1; }
expect "$out" "cannot read '/dev/zero': larger than 256 MiB, more than a graph file holds"
expect "$out" "dataset: gen er d=3 edges=3 n=10 seed=4"
expect "$out" "alive"
out=$(timeout 60 "$fedbn" --no-pane -f /dev/zero 2>&1)
status=$?
[ $status = 1 ] || { echo "FAIL: -f /dev/zero: exit status $status, expected 1"; fail=1; }
expect "$out" "cannot read '/dev/zero': $long; the rest is not run"
# Ctrl-C while load waits for more of a first line that never ends
mkfifo "$dir/slow"
(while :; do printf xxxxxxxx; sleep 0.05; done > "$dir/slow") 2>/dev/null &
writer=$!
"$fedbn" --no-pane -c "gen er d=3 n=10 seed=4" -c "load $dir/slow" -c "echo alive" \
	> "$dir/out" 2>&1 &
pid=$!
sleep 2
kill -INT $pid
sleep 2
if kill -0 $pid 2>/dev/null; then
	echo "FAIL: load of an endless pipe did not stop on Ctrl-C"
	kill -9 $pid
	fail=1
fi
wait $pid
kill $writer 2>/dev/null
wait $writer 2>/dev/null
out=$(cat "$dir/out")
expect "$out" "stopped by Ctrl-C; the dataset is as it was"
expect "$out" "alive"
# under a memory limit (not with a sanitizer, which cannot start under one): an endless pipe
# of short rows ends in a sentence for load, truth load and plot, and the session goes on
if (ulimit -v 1000000 && "$fedbn" --version) >/dev/null 2>&1; then
	mkfifo "$dir/rows"
	for cmd in "load" "truth load" "plot"; do
		args=; [ "$cmd" = plot ] && args="x=a y=b"
		(yes a,b > "$dir/rows") 2>/dev/null &
		writer=$!
		out=$( (ulimit -v 400000 && exec timeout 60 "$fedbn" --no-pane \
			-c "gen er d=3 n=10 seed=4" -c "$cmd $dir/rows $args" -c "echo alive") 2>&1)
		status=$?
		kill $writer 2>/dev/null
		wait $writer 2>/dev/null
		[ $status = 1 ] || { echo "FAIL: $cmd of endless rows: exit status $status"; fail=1; }
		expect "$out" "cannot read '$dir/rows': "
		expect "$out" "alive"
	done
fi
[ $fail = 0 ] && echo "PASS: endless inputs are refused or stopped, the session kept"
exit $fail
