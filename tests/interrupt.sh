#!/bin/sh
# Ctrl-C during a run (batch mode, no pane): the run stops at the end of the current round,
# keeps its rounds, says it stopped (an error in batch mode, so the exit status is 1), and the
# commands after it still run; a second Ctrl-C ends the program.  Ctrl-C also stops a long
# gen, a long export and a long load, leaving the session and the file as they were.  SIGTERM
# stops the same commands and a sweep the same way, and then ends the program with status 143.
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
[ $status = 1 ] || { echo "FAIL: exit status $status after one Ctrl-C, expected 1"; cat out.txt; exit 1; }
grep -q '^error: notears-admm: stopped after round [0-9]* (Ctrl-C)' out.txt ||
	{ echo "FAIL: no 'stopped after round' error"; cat out.txt; exit 1; }
grep -q '^notears-admm not finished: [0-9]* rounds so far, ' out.txt ||
	{ echo "FAIL: the summary of the stopped run does not say it stopped"; cat out.txt; exit 1; }
grep -q 'finished' out.txt && grep -v 'not finished' out.txt | grep -q finished &&
	{ echo "FAIL: the stopped run is said to have finished"; cat out.txt; exit 1; }
grep -q '^notears-admm on horizontal 10 .*: [0-9]* rounds (not finished)' out.txt ||
	{ echo "FAIL: result did not show the unfinished run"; cat out.txt; exit 1; }
grep -qx 'after-the-run' out.txt || { echo "FAIL: the next command did not run"; exit 1; }
rounds=$(grep -c '^round' out.txt)
[ "$rounds" -lt 197 ] || { echo "FAIL: the run was not stopped ($rounds rounds)"; exit 1; }

# start_waiting FILE PATTERN COMMANDS: run COMMANDS in the background (pid in $pid), output in
# FILE, and wait until PATTERN was printed
start_waiting() {
	: > "$1"
	"$fedbn" -c "$3" > "$1" 2>&1 &
	pid=$!
	for _ in $(seq 400); do
		grep -q "$2" "$1" && return 0
		sleep 0.05
	done
}

# one long round (every client learns NOTEARS in it): two Ctrl-C during it end the program
start_waiting out2.txt '^algorithm: voting' "gen er d=40 edges=40 n=4000 seed=4;
	split horizontal 2; algo voting:notears; run; echo not-reached"
sleep 0.2
kill -INT "$pid"
sleep 0.2
kill -INT "$pid"
wait "$pid"
status=$?
[ $status = 130 ] || { echo "FAIL: exit status $status after two Ctrl-C, expected 130"; cat out2.txt; exit 1; }
grep -q 'interrupted twice' out2.txt || { echo "FAIL: no message on the second Ctrl-C"; exit 1; }

# signal_after_start SIGNAL FILE PATTERN COMMANDS: run COMMANDS (output in FILE), send SIGNAL
# once PATTERN was printed and half a second passed, and wait; the seconds the program took
# after the signal in $took
signal_after_start() {
	start_waiting "$2" "$3" "$4"
	sleep 0.5
	t0=$(date +%s)
	kill -"$1" "$pid"
	wait "$pid"
	status=$?
	took=$(($(date +%s) - t0))
}

# stop_after_start PATTERN COMMANDS: press Ctrl-C (output in out3.txt)
stop_after_start() {
	signal_after_start INT out3.txt "$1" "$2"
}

# a long gen (about 15 s of work): stopped, the earlier dataset kept
stop_after_start '^generated 5 rows' "gen er d=5 n=5 seed=9; gen er d=1000 edges=400000 n=20000;
	info; echo after-gen"
[ $status = 1 ] || { echo "FAIL: gen: exit status $status, expected 1"; cat out3.txt; exit 1; }
[ "$took" -le 5 ] || { echo "FAIL: gen went on for $took s after Ctrl-C"; exit 1; }
grep -qx 'error: gen: stopped by Ctrl-C; the dataset is as it was' out3.txt ||
	{ echo "FAIL: gen: no stop message"; cat out3.txt; exit 1; }
grep -qx 'dataset: gen er d=5 edges=5 n=5 seed=9 noise=gauss sem=linear' out3.txt ||
	{ echo "FAIL: gen: the earlier dataset was not kept"; cat out3.txt; exit 1; }
grep -qx 'after-gen' out3.txt || { echo "FAIL: gen: the next command did not run"; exit 1; }

# a long export (Graphviz lays 1500 nodes out for half a minute): stopped, no file, no
# temporary file, and no drawing process left behind
stop_after_start '^generated 10 rows' "gen er d=1500 edges=3000 n=10; export huge.svg what=truth;
	echo after-export"
[ $status = 1 ] || { echo "FAIL: export: exit status $status, expected 1"; cat out3.txt; exit 1; }
[ "$took" -le 5 ] || { echo "FAIL: export went on for $took s after Ctrl-C"; exit 1; }
grep -qx "error: export: stopped by Ctrl-C; 'huge.svg' is as it was" out3.txt ||
	{ echo "FAIL: export: no stop message"; cat out3.txt; exit 1; }
grep -qx 'after-export' out3.txt || { echo "FAIL: export: the next command did not run"; exit 1; }
[ -z "$(ls | grep huge)" ] || { echo "FAIL: export left files: $(ls | grep huge)"; exit 1; }
sleep 0.2
pgrep -f 'gen er d=1500 edges=3000' >/dev/null &&
	{ echo "FAIL: export: the drawing process is still running"; exit 1; }

# a load that never ends (a pipe fed without end): stopped, the earlier dataset kept
mkfifo endless.csv || exit 99
(while :; do seq 1 5000 | sed 's/$/,1,2/'; done) > endless.csv 2>/dev/null &
writer=$!
stop_after_start '^generated 5 rows' "gen er d=5 n=5 seed=9; load endless.csv; info;
	echo after-load"
kill "$writer" 2>/dev/null
[ $status = 1 ] || { echo "FAIL: load: exit status $status, expected 1"; cat out3.txt; exit 1; }
[ "$took" -le 5 ] || { echo "FAIL: load went on for $took s after Ctrl-C"; exit 1; }
grep -qx 'error: load: stopped by Ctrl-C; the dataset is as it was' out3.txt ||
	{ echo "FAIL: load: no stop message"; cat out3.txt; exit 1; }
grep -qx 'dataset: gen er d=5 edges=5 n=5 seed=9 noise=gauss sem=linear' out3.txt ||
	{ echo "FAIL: load: the earlier dataset was not kept"; cat out3.txt; exit 1; }
grep -qx 'after-load' out3.txt || { echo "FAIL: load: the next command did not run"; exit 1; }
# SIGTERM (a scheduler's, timeout's) stops the command as Ctrl-C does, cleans up, and then
# ends the program with status 143: the rest of the script does not run

# term_after_start PATTERN COMMANDS: as stop_after_start, with SIGTERM (output in out4.txt)
term_after_start() {
	signal_after_start TERM out4.txt "$1" "$2"
}

# term_check WHAT: the exit status, the time taken and that nothing after ran
term_check() {
	[ $status = 143 ] || { echo "FAIL: $1: exit status $status after SIGTERM, expected 143"; cat out4.txt; exit 1; }
	[ "$took" -le 5 ] || { echo "FAIL: $1 went on for $took s after SIGTERM"; exit 1; }
	grep -q 'after-' out4.txt && { echo "FAIL: $1: a command ran after SIGTERM"; cat out4.txt; exit 1; }
	[ -z "$(ls -a | grep 'fedbn-tmp')" ] || { echo "FAIL: $1 left $(ls -a | grep fedbn-tmp)"; exit 1; }
}

# a run from a script file: stopped after its round, the script's next lines not run
printf '%s\n' "gen er d=30 edges=30 n=600 seed=2; split horizontal 10; algo notears-admm" \
	"run" "echo after-the-run" "session save after-s.fbn" > job.fbn
: > out4.txt
"$fedbn" -f job.fbn > out4.txt 2>&1 &
pid=$!
for _ in $(seq 400); do
	[ "$(grep -c '^round' out4.txt)" -ge 3 ] && break
	sleep 0.05
done
t0=$(date +%s)
kill -TERM "$pid"
wait "$pid"
status=$?
took=$(($(date +%s) - t0))
term_check run
grep -q '^job.fbn:2: error: notears-admm: stopped after round [0-9]* (SIGTERM)' out4.txt ||
	{ echo "FAIL: run: no 'stopped after round ... (SIGTERM)' error"; cat out4.txt; exit 1; }
[ ! -e after-s.fbn ] || { echo "FAIL: run: the script went on after SIGTERM"; exit 1; }

# a long gen
term_after_start '^generated 5 rows' "gen er d=5 n=5 seed=9; gen er d=1000 edges=400000 n=20000;
	echo after-gen"
term_check gen
grep -qx 'error: gen: stopped by SIGTERM; the dataset is as it was' out4.txt ||
	{ echo "FAIL: gen: no stop message"; cat out4.txt; exit 1; }

# a long export over an older file: the older file intact, no drawing process left
echo 'the older picture' > huge.svg
term_after_start '^generated 10 rows' "gen er d=1500 edges=3000 n=10; export huge.svg what=truth
	force=yes; echo after-export"
term_check export
grep -qx "error: export: stopped by SIGTERM; 'huge.svg' is as it was" out4.txt ||
	{ echo "FAIL: export: no stop message"; cat out4.txt; exit 1; }
[ "$(cat huge.svg)" = 'the older picture' ] || { echo "FAIL: export: the older file changed"; exit 1; }
sleep 0.2
pgrep -f 'gen er d=1500 edges=3000' >/dev/null &&
	{ echo "FAIL: export: the drawing process is still running"; exit 1; }

# a load that never ends
(while :; do seq 1 5000 | sed 's/$/,1,2/'; done) > endless.csv 2>/dev/null &
writer=$!
term_after_start '^generated 5 rows' "gen er d=5 n=5 seed=9; load endless.csv; echo after-load"
kill "$writer" 2>/dev/null
term_check load
grep -qx 'error: load: stopped by SIGTERM; the dataset is as it was' out4.txt ||
	{ echo "FAIL: load: no stop message"; cat out4.txt; exit 1; }

# a sweep: its cells end with it, and the rows written so far stay in its file
term_after_start ' cells done' 'sweep seed=1..40 do="gen er d=20 edges=20 n=400 seed=${seed};
	split horizontal 4; algo notears-admm; run" out=sw.csv progress=0 jobs=2; echo after-sweep'
term_check sweep
grep -q '^error: sweep: stopped by SIGTERM after [0-9]* of 40 cells' out4.txt ||
	{ echo "FAIL: sweep: no stop message"; cat out4.txt; exit 1; }
[ "$(wc -l < sw.csv)" -ge 2 ] || { echo "FAIL: sweep: sw.csv lost its rows"; exit 1; }
sleep 0.2
pgrep -f 'seed=1..40 do=' >/dev/null && { echo "FAIL: sweep: a cell is still running"; exit 1; }

echo "PASS: Ctrl-C stopped the run after round $rounds, a gen, an export and a load, and the session went on; SIGTERM stopped a run, a gen, an export, a load and a sweep and ended the program (143)"
