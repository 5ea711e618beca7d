#!/bin/sh
# Ctrl-C during a run (batch mode, no pane): the run stops at the end of the current round,
# keeps its rounds, and the commands after it still run; a second Ctrl-C ends the program.
fedbn=${FEDBN:-./fedbn}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99

# start_job: run a long job in the background (pid in $pid) and wait until it has printed
# three round lines
start_job() {
	: > out.txt
	"$fedbn" -c "gen er d=30 edges=30 n=600 seed=2; split horizontal 10; algo notears-admm;
		run; result; echo after-the-run" > out.txt 2>&1 &
	pid=$!
	for _ in $(seq 400); do
		[ "$(grep -c '^round' out.txt)" -ge 3 ] && return 0
		sleep 0.05
	done
	echo "FAIL: the run did not start"
	cat out.txt
	exit 1
}

start_job
kill -INT "$pid"
wait "$pid"
status=$?
[ $status = 0 ] || { echo "FAIL: exit status $status after one Ctrl-C"; cat out.txt; exit 1; }
grep -q '^stopped after round [0-9]* (Ctrl-C)' out.txt ||
	{ echo "FAIL: no 'stopped after round' line"; cat out.txt; exit 1; }
grep -q '^notears-admm on horizontal 10 .*: [0-9]* rounds (not finished)' out.txt ||
	{ echo "FAIL: result did not show the unfinished run"; cat out.txt; exit 1; }
grep -qx 'after-the-run' out.txt || { echo "FAIL: the next command did not run"; exit 1; }
rounds=$(grep -c '^round' out.txt)
[ "$rounds" -lt 197 ] || { echo "FAIL: the run was not stopped ($rounds rounds)"; exit 1; }

# one long round (every client learns NOTEARS in it): two Ctrl-C during it end the program
"$fedbn" -c "gen er d=40 edges=40 n=4000 seed=4; split horizontal 2; algo voting:notears; run;
	echo not-reached" > out2.txt 2>&1 &
pid=$!
for _ in $(seq 400); do
	grep -q '^algorithm: voting' out2.txt && break
	sleep 0.05
done
sleep 0.2
kill -INT "$pid"
sleep 0.2
kill -INT "$pid"
wait "$pid"
status=$?
[ $status = 130 ] || { echo "FAIL: exit status $status after two Ctrl-C, expected 130"; cat out2.txt; exit 1; }
grep -q 'interrupted twice' out2.txt || { echo "FAIL: no message on the second Ctrl-C"; exit 1; }
echo "PASS: Ctrl-C stopped the run after round $rounds and the session went on"
