#!/bin/sh
# A real federation over MPI on this machine, 1 server and 4 clients: every federated
# algorithm gives the in-process result bit for bit and the ledger counts what crossed MPI;
# a client that dies is named and nothing hangs, or, where the algorithm draws only some
# clients a round, left out while the run goes on; the program itself runs a study across
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
# Open MPI's start-up (PMIx, hwloc) keeps memory LeakSanitizer reports and its shared-memory
# transport is not instrumented: under the sanitizers the MPI jobs are skipped; the wire
# format they carry is checked under them by test-wire and the fuzzer
if "$prog" sanitized; then
	echo "SKIP: built with a sanitizer, which Open MPI's own start-up does not pass"
	exit 77
fi
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
mpi="timeout 120 mpirun --oversubscribe --allow-run-as-root --mca btl self,vader"
fail=0

# equal: the test program's own checks, one line each
$mpi -np 5 "$prog" equal > "$tmp/equal" 2>&1
cat "$tmp/equal"
grep -q '^equal: 0 failed$' "$tmp/equal" || { echo "FAIL: equal"; fail=1; }

# die: client 2 dies after the run opened; the server names it at the deadline, and the job
# ends (--enable-recovery: Open MPI lets the others go on so that fedbn can say who died)
t0=$(date +%s)
$mpi --enable-recovery -np 5 "$prog" die > "$tmp/die" 2>&1
t1=$(date +%s)
grep -v 'PMIX ERROR' "$tmp/die"
grep -q '^die: 0 failed$' "$tmp/die" || { echo "FAIL: die"; fail=1; }
[ $((t1 - t0)) -lt 60 ] || { echo "FAIL: the job with a dead client took $((t1 - t0)) s"; fail=1; }

# die-partial: the same death under gs-feddag drawing 2 of 4 clients a round; the run goes on
# without client 2, says so once and finishes, and the job ends
t0=$(date +%s)
$mpi --enable-recovery -np 5 "$prog" die-partial > "$tmp/die-partial" 2>&1
t1=$(date +%s)
grep -v 'PMIX ERROR' "$tmp/die-partial"
grep -q '^die-partial: 0 failed$' "$tmp/die-partial" || { echo "FAIL: die-partial"; fail=1; }
[ $((t1 - t0)) -lt 60 ] ||
	{ echo "FAIL: the partial job with a dead client took $((t1 - t0)) s"; fail=1; }

# the program: four site files, a study script on the server, the same figures as the
# in-process run on the same blocks (the ledger's byte counts differ by the frame headers)
"$fedbn" -c "gen er d=5 edges=5 n=200 seed=4; save $tmp/all.csv" > /dev/null || fail=1
awk -v dir="$tmp" 'NR == 1 { h = $0; for (c = 1; c <= 4; c++) print h > (dir "/site-" c ".csv"); next }
	{ print > (dir "/site-" (int((NR - 2) / 50) + 1) ".csv") }' "$tmp/all.csv"
printf 'algo notears-admm\nrun\nresult\nalgo fedpc\nrun\nresult\nalgo voting:pc\nrun\nresult\n%s\n%s\n' \
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
[ $fail = 0 ] && echo "mpi: equal, die, die-partial and the program's study all hold"
exit $fail
