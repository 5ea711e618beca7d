#!/bin/sh
# bootstrap's progress and Ctrl-C: without a terminal, progress=0 prints a line on standard
# error after each resample; Ctrl-C (and SIGTERM) stops it, keeps the resamples 1 to K that had
# finished and prints their figures, which are those of bootstrap K with the same seed; the
# commands after it still run.  jobs=1 and jobs=2 give the same figures.
fedbn=${FEDBN:-./fedbn}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99
data="gen er d=12 edges=14 n=400 seed=2; algo pc"

# the figures of a bootstrap's output: the pair table and the consensus, without the lines
# that name the number of resamples
figures() {
	sed -n '/^pair /,/^g[0-9]*: the consensus/p' "$1" | grep -v '^g[0-9]*: the consensus'
}

# progress=0: one line per resample, in order, then the figures; jobs=2 gives the same ones
"$fedbn" -c "$data; bootstrap 7 seed=3 progress=0" > p1.txt 2> p1.err || { cat p1.txt p1.err; exit 1; }
[ "$(grep -c '^bootstrap: [0-9]* of 7 resamples done, about [0-9]* s left$' p1.err)" = 7 ] ||
	{ echo "FAIL: not one progress line per resample"; cat p1.err; exit 1; }
[ "$(sed -n 's/^bootstrap: \([0-9]*\) of 7 .*/\1/p' p1.err | tr '\n' ' ')" = "1 2 3 4 5 6 7 " ] ||
	{ echo "FAIL: progress lines out of order"; cat p1.err; exit 1; }
"$fedbn" -c "$data; bootstrap 7 seed=3 jobs=2" > p2.txt 2>&1 || { cat p2.txt; exit 1; }
figures p1.txt > f1.txt
figures p2.txt > f2.txt
[ -s f1.txt ] && cmp -s f1.txt f2.txt || { echo "FAIL: jobs=2 changed the figures"; diff f1.txt f2.txt; exit 1; }
grep -q 'bootstrap: [0-9]* of' p2.txt && { echo "FAIL: a progress line within 10 s"; exit 1; }

# stop_after SIGNAL: a long bootstrap stopped by SIGNAL once it has finished a few resamples
stop_after() {
	"$fedbn" -c "$data; bootstrap 100000 seed=3 jobs=2 progress=0; echo after-it" > s.txt 2> s.err &
	pid=$!
	for _ in $(seq 400); do
		[ "$(grep -c 'resamples done' s.err)" -ge 5 ] && break
		sleep 0.05
	done
	kill -"$1" "$pid"
	wait "$pid"
	status=$?
}

stop_after INT
[ $status = 1 ] || { echo "FAIL: exit status $status after Ctrl-C, expected 1"; cat s.txt; exit 1; }
k=$(sed -n 's/^stopped by Ctrl-C: resamples 1 to \([0-9]*\) of 100000 had finished;.*/\1/p' s.txt)
[ -n "$k" ] && [ "$k" -ge 1 ] || { echo "FAIL: no 'stopped by Ctrl-C' line"; cat s.txt; exit 1; }
grep -q "^bootstrap: pc on $k resamples of the rows" s.txt ||
	{ echo "FAIL: the figures are not said to be of $k resamples"; cat s.txt; exit 1; }
grep -q '^error: bootstrap: stopped by Ctrl-C$' s.err ||
	{ echo "FAIL: batch mode did not end the command in an error"; cat s.err; exit 1; }
grep -qx 'after-it' s.txt || { echo "FAIL: the next command did not run"; cat s.txt; exit 1; }
"$fedbn" -c "$data; bootstrap $k seed=3" > k.txt 2>&1 || { cat k.txt; exit 1; }
figures s.txt > fs.txt
figures k.txt > fk.txt
[ -s fs.txt ] && cmp -s fs.txt fk.txt ||
	{ echo "FAIL: the stopped bootstrap's figures are not bootstrap $k's"; diff fs.txt fk.txt; exit 1; }

stop_after TERM
[ $status = 143 ] || { echo "FAIL: exit status $status after SIGTERM, expected 143"; cat s.txt; exit 1; }
grep -q '^stopped by SIGTERM: resamples 1 to [0-9]* of 100000 had finished' s.txt ||
	{ echo "FAIL: no 'stopped by SIGTERM' line"; cat s.txt; exit 1; }
echo "PASS: progress lines, jobs=2, Ctrl-C and SIGTERM keep the finished resamples ($k)"
