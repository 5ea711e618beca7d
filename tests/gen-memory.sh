#!/bin/sh
# gen under a memory limit: a graph or a dataset that does not fit is one sentence saying what
# it takes, the session keeps its dataset, and the commands after it run.
fedbn=${FEDBN:-./fedbn}
limit=1000000 # kB of address space
# a build with AddressSanitizer reserves terabytes of address space and cannot start
# under the limit: nothing to test there
if ! (ulimit -v $limit && "$fedbn" --version) >/dev/null 2>&1; then
	echo "SKIP: fedbn cannot start under ulimit -v $limit (a sanitizer build)"
	exit 77
fi
out=$( (ulimit -v $limit && "$fedbn" -c "gen er d=6 n=10 seed=4; gen er d=100000;
	gen sf d=20000 edges=40000; gen er-bernoulli d=20000; gen er d=2000 n=200000; gen er d=5 n=20000 sem=gp; info;
	echo alive") 2>&1)
status=$?
fail=0
# expect TEXT: the output holds the line TEXT
expect() {
	printf '%s\n' "$out" | grep -qxF "$1" || { echo "FAIL: no line: $1"; fail=1; }
}
[ $status = 1 ] || { echo "FAIL: exit status $status, expected 1"; fail=1; }
expect "error: gen: cannot draw a DAG on d=100000 variables: out of memory (its graph takes 90 GB)"
expect "error: gen: cannot draw a DAG on d=20000 variables: out of memory (its graph takes 3.6 GB)"
expect "error: gen: cannot simulate 200000 x 2000 values: out of memory (they take 3.2 GB)"
expect "error: gen: cannot draw a gp mechanism over n=20000 rows: out of memory (its n x n kernel takes 3.2 GB)"
expect "dataset: gen er d=6 edges=6 n=10 seed=4 noise=gauss sem=linear"
expect "alive"
[ $fail = 0 ] || printf '%s\n' "$out"
[ $fail = 0 ] && echo "PASS: gen reports memory it cannot have and the session goes on"
exit $fail
