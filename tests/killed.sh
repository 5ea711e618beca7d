#!/bin/sh
# A killed fedbn (SIGKILL: no handler runs): the processes it started end with it (a drawing
# of export, gnuplot, a sweep's cells), and the temporary files a killed write leaves beside
# its target (TARGET.fedbn-tmp-PID-XXXXXX) are removed by the next write to that target, once
# no process has that PID; a living writer's and another target's are left alone.
fedbn=${FEDBN:-./fedbn}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99

fail() {
	echo "FAIL: $*"
	tail -n 5 out.txt 2>/dev/null
	exit 1
}

# kill_when CONDITION COMMANDS: run COMMANDS (output in out.txt, process id in $pid),
# SIGKILL the program once the shell test CONDITION holds and half a second passed; its child
# processes then in $kids
kill_when() {
	: > out.txt
	"$fedbn" -c "$2" > out.txt 2>&1 &
	pid=$!
	for _ in $(seq 400); do
		eval "$1" && break
		sleep 0.05
	done
	sleep 0.5
	kids=$(pgrep -P "$pid")
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
}

# gone WHAT: whether the processes in $kids (there must be some) ended within two seconds;
# fails naming WHAT, after killing them, when one did not
gone() {
	[ -n "$kids" ] || fail "$1: no child process was running"
	for _ in $(seq 40); do
		alive=
		for k in $kids; do
			kill -0 "$k" 2>/dev/null && alive=$k
		done
		[ -z "$alive" ] && return 0
		sleep 0.05
	done
	kill -KILL $kids 2>/dev/null
	fail "$1 outlived fedbn"
}

# the drawing process of a long export: a first child lays the graph out (seconds), a second
# one renders 1500 nodes (half a minute); SIGKILL once the second one runs
"$fedbn" -c "gen er d=1500 edges=3000 n=10 seed=7; export huge.svg" > out.txt 2>&1 &
pid=$!
first=
for _ in $(seq 600); do
	child=$(pgrep -P "$pid")
	[ -n "$child" ] && [ -z "$first" ] && first=$child
	[ -n "$child" ] && [ "$child" != "$first" ] && break
	sleep 0.05
done
[ -n "$child" ] && [ "$child" != "$first" ] || { kill -KILL "$pid"; fail "no second drawing process"; }
kids=$child
kill -KILL "$pid"
wait "$pid" 2>/dev/null
gone "the drawing process"

# gnuplot (here a stand-in that waits, as a long plot would)
mkdir bin
printf '#!/bin/sh\nexec sleep 31.25\n' > bin/gnuplot
chmod +x bin/gnuplot
PATH=$tmp/bin:$PATH kill_when "grep -q '^generated' out.txt" "gen er d=3 n=20 seed=1; split horizontal 2;
	algo notears-admm; run; plot trace out=t.png"
gone gnuplot

# a sweep's cells (each in its own process group, out of a terminal's reach; each learns for
# many seconds), once both run
kill_when '[ "$(pgrep -P "$pid" | wc -l)" -ge 2 ]' 'sweep seed=1..4 jobs=2 progress=0
	out=sw.csv do="gen er d=40 edges=40 n=4000 seed=${seed}; split horizontal 2;
	algo voting:notears; run"'
gone "a sweep's cell"

# stale temporary files: one of a process that ended, one of a living process (this shell),
# one of another target
sh -c 'exit 0' &
dead=$!
wait "$dead"
kill -0 "$dead" 2>/dev/null && dead=2147483646
: > "g.dot.fedbn-tmp-$dead-aBcDeF"
: > "g.dot.fedbn-tmp-$$-aBcDeF"
: > "h.dot.fedbn-tmp-$dead-aBcDeF"
"$fedbn" -c "gen er d=3 n=5 seed=1; export g.dot what=truth" > out.txt 2>&1 ||
	fail "the export failed"
[ ! -e "g.dot.fedbn-tmp-$dead-aBcDeF" ] || fail "a dead writer's temporary file was left"
[ -e "g.dot.fedbn-tmp-$$-aBcDeF" ] || fail "a living writer's temporary file was removed"
[ -e "h.dot.fedbn-tmp-$dead-aBcDeF" ] || fail "another target's temporary file was removed"
[ "$(ls | grep -c 'g.dot.fedbn-tmp-')" = 1 ] || fail "the export left a temporary file"

echo "PASS: a drawing, gnuplot and a sweep's cells end with a killed fedbn; the next write removes a killed writer's temporary files only"
