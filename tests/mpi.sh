#!/bin/sh
# A real federation over MPI on this machine, 1 server and 4 clients: every federated
# algorithm gives the in-process result bit for bit and the ledger counts what crossed MPI,
# over sites holding the same variables and over sites whose rows a key column matches;
# a client that dies is named and nothing hangs, or, where the algorithm draws only some
# clients a round, left out while the run goes on; the program itself runs studies across
# site files.  Skipped (77) where fedbn was built without Open MPI or mpirun is missing.
top=${top_srcdir:-.}
build=${top_builddir:-.}
fedbn=${FEDBN:-./fedbn}
prog=$build/tests/mpi/test-mpi
if [ ! -x "$prog" ]; then
	echo "SKIP: fedbn was built without Open MPI (install libopenmpi-dev and configure again)"
	exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
	echo "SKIP: mpirun is not installed (the Debian package openmpi-bin)"
	exit 77
fi
# Open MPI keeps memory from its start-up until exit, which tests/lsan.supp names by Open MPI's
# libraries; its stacks reach them only when unwound fully (Open MPI has no frame pointers and
# unloads its plugins before exit), so under the sanitizers every rank unwinds fully
if "$prog" sanitized; then
	LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(cd "$top" && pwd)/tests/lsan.supp}"
	LSAN_OPTIONS="$LSAN_OPTIONS:fast_unwind_on_malloc=0"
	export LSAN_OPTIONS
fi
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
mpi="timeout 120 mpirun --oversubscribe --allow-run-as-root --mca btl self,vader"
fail=0

# run an MPI job with each rank's output in its own files (mpirun forwards the streams in
# pieces, so that one rank's piece may land inside another's line), then gather them, rank 0
# first, and mpirun's own messages last, into $tmp/OUT; the job's status is returned
ranks() {
	out=$1
	shift
	rm -rf "$tmp/of-$out"
	$mpi --output-filename "$tmp/of-$out" "$@" > "$tmp/$out.mpirun" 2>&1
	st=$?
	cat "$tmp/of-$out"/*/rank.*/stdout "$tmp/of-$out"/*/rank.*/stderr "$tmp/$out.mpirun" \
		> "$tmp/$out" 2>/dev/null
	return $st
}

# equal: the test program's own checks, one line each
ranks equal -np 5 "$prog" equal
cat "$tmp/equal"
grep -q '^equal: 0 failed$' "$tmp/equal" || { echo "FAIL: equal"; fail=1; }

# vertical, hybrid: each client serves its block as a site file with a key column "id" and
# its rows in another order; the circuit learners over MPI equal the same split in-process
for kind in vertical hybrid; do
	ranks $kind -np 5 "$prog" $kind
	cat "$tmp/$kind"
	grep -q "^$kind: 0 failed\$" "$tmp/$kind" || { echo "FAIL: $kind"; fail=1; }
done

# secure: secure=yes over MPI gives the in-process secure runs bit for bit (fedpc with
# dp_epsilon= too: the noise comes from the seed)
ranks secure -np 5 "$prog" secure
cat "$tmp/secure"
grep -q '^secure: 0 failed$' "$tmp/secure" || { echo "FAIL: secure"; fail=1; }

# discrete: fedc2sl over MPI on the data cut into levels gives the in-process runs bit for
# bit (plain, clients dropping out, secure=yes); then client 2 is killed as the last round
# with a sum goes out, and the survivors' shares remove its masks (--enable-recovery: the
# others go on)
ranks discrete --enable-recovery -np 5 "$prog" discrete "$tmp/c2.pid"
grep -v 'PMIX ERROR' "$tmp/discrete"
grep -q '^discrete: 0 failed$' "$tmp/discrete" || { echo "FAIL: discrete"; fail=1; }

# die: client 2 dies after the run opened; the server names it at the deadline, and the job
# ends (--enable-recovery: Open MPI lets the others go on so that fedbn can say who died)
t0=$(date +%s)
ranks die --enable-recovery -np 5 "$prog" die
t1=$(date +%s)
grep -v 'PMIX ERROR' "$tmp/die"
grep -q '^die: 0 failed$' "$tmp/die" || { echo "FAIL: die"; fail=1; }
[ $((t1 - t0)) -lt 60 ] || { echo "FAIL: the job with a dead client took $((t1 - t0)) s"; fail=1; }

# die-partial: the same death under gs-feddag drawing 2 of 4 clients a round; the run goes on
# without client 2, says so once and finishes, and the job ends
t0=$(date +%s)
ranks die-partial --enable-recovery -np 5 "$prog" die-partial
t1=$(date +%s)
grep -v 'PMIX ERROR' "$tmp/die-partial"
grep -q '^die-partial: 0 failed$' "$tmp/die-partial" || { echo "FAIL: die-partial"; fail=1; }
[ $((t1 - t0)) -lt 60 ] ||
	{ echo "FAIL: the partial job with a dead client took $((t1 - t0)) s"; fail=1; }

# outside mpirun, --client says where it runs; --timeout has a stated maximum
"$fedbn" --client x.csv > "$tmp/outside" 2>&1
st=$?
[ $st = 2 ] && grep -q '^fedbn: --client: run it under mpirun' "$tmp/outside" &&
	[ "$(wc -l < "$tmp/outside")" = 1 ] ||
	{ echo "FAIL: --client outside mpirun (status $st)"; cat "$tmp/outside"; fail=1; }
"$fedbn" --timeout 1e300 -c 'echo hi' > "$tmp/tmo" 2>&1
st=$?
[ $st = 2 ] && grep -q "^fedbn: --timeout: '1e300' is not a number of seconds above 0 and at most 86400" \
	"$tmp/tmo" || { echo "FAIL: --timeout 1e300 (status $st)"; cat "$tmp/tmo"; fail=1; }

# faults of the program's own studies: each ends the job in bounded time with fedbn's sentence
"$fedbn" -c "gen er d=4 edges=3 n=80 seed=2; save $tmp/f.csv" > /dev/null || fail=1
for c in 1 2 3 4; do cp "$tmp/f.csv" "$tmp/fsite-$c.csv"; done
printf 'algo gs-feddag\nset it_in=12 it_fl=4 it_max=2 hidden=4 layers=2\nstep 1\nsource ff\necho after\n' \
	> "$tmp/fstudy.fbn"
# the pid of the process whose arguments are ARGS (the client's or the server's, not mpirun's)
pid_of() {
	ps -eo pid=,args= | awk -v a="$*" '{ p = $1; $1 = ""; sub(/^ /, "") }
		$0 ~ /^[^ ]*fedbn / { s = $0; sub(/^[^ ]*fedbn /, "", s); if (s == a) print p }' | tail -n 1
}
# fault NAME WHO [MPIRUN-OPTIONS]: a study over the four fsite files whose server waits in
# `source ff` after one round; WHO (client: the last client started, then ff says `run`;
# server) is killed with SIGKILL; the job must end within 20 s of the kill (the deadline is
# 30 s); the paths hold $tmp, so that only this test's processes are found
fault() {
	name=$1 who=$2
	shift 2
	rm -f "$tmp/ff" && mkfifo "$tmp/ff"
	(cd "$tmp" && ranks "$name" "$@" -np 1 "$fedbn" --no-pane -f "$tmp/fstudy.fbn" : \
		-np 4 "$fedbn" --client "$tmp/fsite-%r.csv") &
	job=$!
	i=0
	while [ $i -lt 300 ] && ! grep -qs '^round *1 ' "$tmp/of-$name"/*/rank.0/stdout; do
		sleep 0.1; i=$((i + 1))
	done
	t0=$(date +%s)
	if [ "$who" = server ]; then
		kill -KILL "$(pid_of --no-pane -f "$tmp/fstudy.fbn")"
	else
		kill -KILL "$(pid_of --client "$tmp/fsite-%r.csv")"
		timeout 20 sh -c "printf 'run\n' > '$tmp/ff'" 2>/dev/null
	fi
	wait $job
	t1=$(date +%s)
	[ $((t1 - t0)) -le 20 ] || { echo "FAIL: $name: the job took $((t1 - t0)) s after the kill"; fail=1; }
}
fault fault-client client --enable-recovery
grep -q "^ff:1: error: gs-feddag: round 2: client [1-4] ('[^']*fsite-[1-4].csv') has ended (its process is gone)" \
	"$tmp/fault-client" && grep -q "^fedbn: the study lost client [1-4] ('[^']*fsite-[1-4].csv'): it ends here" \
	"$tmp/fault-client" || { echo "FAIL: a killed client is not named"; cat "$tmp/fault-client"; fail=1; }
grep -q '^after$' "$tmp/fault-client" || { echo "FAIL: the server's script did not go on"; fail=1; }
fault fault-plain client
grep -q "has ended (its process is gone)" "$tmp/fault-plain" ||
	echo "note: without --enable-recovery mpirun ended the job before the server named the client"
fault fault-server server --enable-recovery
[ "$(grep '^fedbn: client [1-4]: the server\( (rank 0)\)\? has ended' "$tmp/fault-server" |
	sort -u | wc -l)" = 4 ] || { echo "FAIL: the clients do not say the server ended"; cat "$tmp/fault-server"; fail=1; }
# a site whose file never comes (a FIFO no one writes): the server names it at the deadline,
# and the job ends, the hung client with it
mkfifo "$tmp/fsite-3.fifo"
for c in 1 2 4; do cp "$tmp/f.csv" "$tmp/hsite-$c.csv"; done
ln -s fsite-3.fifo "$tmp/hsite-3.csv"
t0=$(date +%s)
(cd "$tmp" && ranks hung --enable-recovery -np 1 "$fedbn" --no-pane --timeout 3 -c clients : \
	-np 4 "$fedbn" --client hsite-%r.csv)
t1=$(date +%s)
grep -q '^fedbn: client 3 did not describe its data within 3 s' "$tmp/hung" &&
	grep -q '^fedbn: the study lost client 3: it ends here' "$tmp/hung" ||
	{ echo "FAIL: a hung site is not named"; cat "$tmp/hung"; fail=1; }
[ $((t1 - t0)) -le 20 ] || { echo "FAIL: the job with a hung site took $((t1 - t0)) s"; fail=1; }
# a client's error names its file once
(cd "$tmp" && ranks nofile -np 1 "$fedbn" --no-pane -c clients : -np 2 "$fedbn" --client nosuch-%r.csv)
grep -m 1 "^fedbn: client [12] cannot take part: " "$tmp/nofile" > "$tmp/nofile.line"
[ "$(grep -o "nosuch-[12].csv" "$tmp/nofile.line" | wc -l)" = 1 ] ||
	{ echo "FAIL: a client's error names its file other than once"; cat "$tmp/nofile"; fail=1; }

# the program: four site files, a study script on the server, the same figures as the
# in-process run on the same blocks (the ledger's byte counts differ by the frame headers)
"$fedbn" -c "gen er d=5 edges=5 n=200 seed=4; save $tmp/all.csv" > /dev/null || fail=1
awk -v dir="$tmp" 'NR == 1 { h = $0; for (c = 1; c <= 4; c++) print h > (dir "/site-" c ".csv"); next }
	{ print > (dir "/site-" (int((NR - 2) / 50) + 1) ".csv") }' "$tmp/all.csv"
printf 'algo notears-admm\nrun\nresult\nalgo fedpc\nrun\nresult\nalgo fedfci\nrun\nresult\nalgo voting:pc\nrun\nresult\n%s\n%s\n' \
	'algo gs-feddag' 'set it_in=12 it_fl=4 it_max=2 hidden=4 layers=2 r=2 dropout=0.3' \
	> "$tmp/study.fbn"
printf 'run\nresult\n' >> "$tmp/study.fbn"
# each rank's output in its own files (mpirun forwards the streams in pieces, so that one
# rank's piece may land inside another's line)
(cd "$tmp" && $mpi --output-filename "$tmp/of" -np 1 "$fedbn" --no-pane -f study.fbn : \
	-np 4 "$fedbn" --client site-%r.csv) > /dev/null 2>&1
cat "$tmp"/of/*/rank.0/stdout "$tmp"/of/*/rank.0/stderr > "$tmp/mpi.out" 2>/dev/null
cat "$tmp"/of/*/rank.[1-4]/stdout > "$tmp/clients.out" 2>/dev/null
{ echo "load $tmp/all.csv"; echo "split horizontal 4 shuffle=no"; cat "$tmp/study.fbn"; } \
	> "$tmp/inproc.fbn"
"$fedbn" --no-pane -f "$tmp/inproc.fbn" > "$tmp/inproc.out" 2>&1
grep -q '^connected to 4 clients over MPI: 200 rows x 5 variables' "$tmp/mpi.out" ||
	{ echo "FAIL: the server did not connect"; cat "$tmp/mpi.out"; fail=1; }
[ "$(grep -c "^client [1-4]: 'site-[1-4].csv': 50 rows x 5 variables" "$tmp/clients.out")" = 4 ] ||
	{ echo "FAIL: not every client described its file"; fail=1; }
# the figures of every round and the results, without byte counts, times and split names
norm() {
	grep -E '^(round|edges|  |against|as DAGs)' "$1" | sed -E 's/  up [0-9.]+ k?B down .*$//'
}
norm "$tmp/inproc.out" > "$tmp/a"
norm "$tmp/mpi.out" > "$tmp/b"
if [ ! -s "$tmp/a" ] || ! diff "$tmp/a" "$tmp/b"; then
	echo "FAIL: the program's study over MPI differs from the in-process one"
	fail=1
fi
# the program, vertically: four sites hold column blocks of the same rows, each with the key
# column "id" somewhere and its rows in its own order; matched by --key id, fedcircuit and
# fedcircuit-em give the in-process circuits, byte for byte, on the same column blocks
awk -F, -v dir="$tmp" 'NR == 1 { print "id,X1,X2" > (dir "/v1"); print "X3,id" > (dir "/v2")
		print "id,X4" > (dir "/v3"); print "X5,id" > (dir "/v4"); next }
	{ id = NR - 1; print id "," $1 "," $2 > (dir "/v1"); print $3 "," id > (dir "/v2")
		print id "," $4 > (dir "/v3"); print $5 "," id > (dir "/v4") }' "$tmp/all.csv"
head -n 1 "$tmp/v1" > "$tmp/vsite-1.csv"; tail -n +2 "$tmp/v1" | sort -t, -k2 -g >> "$tmp/vsite-1.csv"
head -n 1 "$tmp/v2" > "$tmp/vsite-2.csv"; tail -n +2 "$tmp/v2" | sort -r -t, -k2 -n >> "$tmp/vsite-2.csv"
head -n 1 "$tmp/v3" > "$tmp/vsite-3.csv"; tail -n +2 "$tmp/v3" | sort -t, -k2 -g >> "$tmp/vsite-3.csv"
cp "$tmp/v4" "$tmp/vsite-4.csv"
printf 'clients\nalgo fedcircuit\nrun\nresult\ncircuit save %s\nalgo fedcircuit-em\nset em=3\nrun\ncircuit save %s\n' \
	c1.txt c2.txt > "$tmp/vstudy.fbn"
(cd "$tmp" && $mpi --output-filename "$tmp/vof" -np 1 "$fedbn" --no-pane -f vstudy.fbn : \
	-np 4 "$fedbn" --client vsite-%r.csv --key id) > /dev/null 2>&1
cat "$tmp"/vof/*/rank.0/stdout "$tmp"/vof/*/rank.0/stderr > "$tmp/vmpi.out" 2>/dev/null
mkdir "$tmp/in"
{ echo "load ../all.csv"; echo 'split vertical 4 cols="X1,X2;X3;X4;X5"'; cat "$tmp/vstudy.fbn"; } \
	> "$tmp/in/vstudy.fbn"
(cd "$tmp/in" && "$fedbn" --no-pane -f vstudy.fbn) > "$tmp/vin.out" 2>&1
grep -q '^connected to 4 clients over MPI: 200 rows x 5 variables (mpi vertical 4 key=id rows=200)' \
	"$tmp/vmpi.out" || { echo "FAIL: the vertical sites did not connect"; cat "$tmp/vmpi.out"; fail=1; }
grep -q '^     3        -      1          1        0  -, -, -, X4, -$' "$tmp/vmpi.out" ||
	{ echo "FAIL: clients does not show site 3 holding X4 alone"; fail=1; }
grep '^round' "$tmp/vin.out" | sed -E 's/  up [0-9.]+ k?B down .*$//' > "$tmp/a"
grep '^round' "$tmp/vmpi.out" | sed -E 's/  up [0-9.]+ k?B down .*$//' > "$tmp/b"
if [ "$(wc -l < "$tmp/a")" != 11 ] || ! diff "$tmp/a" "$tmp/b" ||
	! cmp "$tmp/c1.txt" "$tmp/in/c1.txt" || ! cmp "$tmp/c2.txt" "$tmp/in/c2.txt"; then
	echo "FAIL: the vertical study over MPI differs from the in-process one"
	fail=1
fi
# result: the sites evaluated the circuit on their own rows in a last round, and the
# log-likelihood over MPI is the in-process one
grep -A1 '^log-likelihood per row' "$tmp/vin.out" > "$tmp/a"
grep -A1 '^log-likelihood per row' "$tmp/vmpi.out" > "$tmp/b"
if ! grep -q '^  train  -[0-9.]* +- [0-9.]*  (200 rows)$' "$tmp/a" || ! diff "$tmp/a" "$tmp/b"; then
	echo "FAIL: result over MPI does not give the in-process log-likelihood"
	fail=1
fi
# a key that repeats, and sites whose keys differ, are named in one sentence
{ cat "$tmp/vsite-3.csv"; tail -n 1 "$tmp/vsite-3.csv"; } > "$tmp/dup-3.csv"
head -n -1 "$tmp/vsite-3.csv" > "$tmp/short-3.csv"
for bad in dup short; do
	for c in 1 2 4; do cp "$tmp/vsite-$c.csv" "$tmp/$bad-$c.csv"; done
	(cd "$tmp" && ranks $bad.out -np 1 "$fedbn" --no-pane -c clients : -np 4 "$fedbn" \
		--client $bad-%r.csv --key id)
done
grep -q "^fedbn: client 3 cannot take part: 'dup-3.csv': the key 'id' repeats the value" \
	"$tmp/dup.out" || { echo "FAIL: a repeated key is not named"; cat "$tmp/dup.out"; fail=1; }
grep -q "^fedbn: client 3 ('short-3.csv') holds 199 keys and client 1 ('short-1.csv') 200" \
	"$tmp/short.out" || { echo "FAIL: sites with other keys are not named"; cat "$tmp/short.out"; fail=1; }
# no rank reported a sanitizer error or a leak (the program's jobs above do not check mpirun's
# status, which is in any case only that of the first rank to fail)
if grep -rl -e 'ERROR: [A-Za-z]*Sanitizer' -e 'runtime error:' "$tmp" > "$tmp/san"; then
	echo "FAIL: a sanitizer reported an error in:"
	cat "$tmp/san"
	fail=1
fi
[ $fail = 0 ] && echo "mpi: equal, vertical, hybrid, secure, discrete, die, die-partial and the program's studies all hold"
exit $fail
