#!/bin/sh
# The NOTEARS-ADMM paper's nonlinear comparison (§6.4), on fedbn's own simulator: ER graphs
# with d = 20 variables and 20 edges, the mlp SEM, 512 rows in all cut into K = 2, 4, 8, 16
# contiguous clients; notears-mlp-admm against voting:notears-mlp and avg:notears-mlp (each
# client runs NOTEARS-MLP alone), every method with its paper defaults.  Prints mean SHD,
# TPR and FDR (± standard error) per K and method.  The paper's ordering: notears-mlp-admm
# has the lowest SHD at every K.  Results so far: doc/results/mlp-admm-results.md.
#   sh examples/mlp-admm-order.sh [quick] [SEEDS] [FEDBN] [KS]
# SEEDS is a count from seed 1 (default 10) or a range FIRST-LAST (e.g. 2-6, to add seeds to
# a table already made), KS defaults to "2 4 8 16"; each K's table is printed when its seeds
# are done; FEDBN defaults to $FEDBN or build/fedbn.  quick: d = 5 with 5 edges, 128 rows,
# K = 2, seed 1 (about a second).
# Environment:
#   ROWS=FILE   append every seed's compare rows to FILE and skip the (K, seed) pairs it
#               already holds, so that a long study can be resumed, run a few seeds at a
#               time, and summarised with `ROWS=FILE sh examples/mlp-admm-order.sh 0` or
#               `awk -f examples/summarize.awk FILE`.
# voting: and avg: share their per-client NOTEARS-MLP fits (set reuse=yes: each client
# learns once; the results are those of separate fits, bit for bit).
# Cost per seed (processor time, one thread, measured with the fits shared): K = 2 about
# 35-75 s, K = 4 about 70-110 s, K = 8 about 130-215 s, K = 16 about 245-365 s; ten seeds of
# all four K take about 1.7 hours of processor time.  Most of it goes to voting:'s
# per-client NOTEARS-MLP fits (avg: then takes them; without sharing, K = 8 took about
# 330 s a seed).  Run it with nice and OPENBLAS_NUM_THREADS=1.
here=$(cd "$(dirname "$0")" && pwd)
quick=no
[ "${1:-}" = quick ] && quick=yes && shift
seeds=${1:-10}
gen="gen er d=20 edges=20 n=512"
[ $quick = yes ] && seeds=${1:-1} gen="gen er d=5 edges=5 n=128"
case $seeds in
*-*) first=${seeds%-*} last=${seeds#*-} ;;
*) first=1 last=$seeds ;;
esac
fedbn=${2:-${FEDBN:-$here/../build/fedbn}}
ks=${3:-2 4 8 16}
[ $quick = yes ] && ks=${3:-2}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
rows=${ROWS:-$tmp/all.csv}
touch "$rows" || exit 1
for k in $ks; do
	s=$first
	while [ "$s" -le "$last" ]; do
		if [ "$(grep -c "^K=$k,.*\"$gen seed=$s " "$rows")" -lt 3 ]; then
			rm -f "$tmp/run.csv"
			"$fedbn" --bail --no-pane -c "$gen sem=mlp seed=$s;
				split horizontal $k shuffle=no; set reuse=yes; algo notears-mlp-admm; run;
				algo voting:notears-mlp; run; algo avg:notears-mlp; run;
				compare out='$tmp/run.csv'" > "$tmp/log" 2>&1 ||
				{ cat "$tmp/log"; exit 1; }
			tail -n +2 "$tmp/run.csv" | sed "s/^/K=$k,/" >> "$rows"
			echo "K = $k: seed $s done" >&2
		fi
		s=$((s + 1))
	done
	# one table per K, as soon as it is done
	grep "^K=$k," "$rows" > "$tmp/$k.csv" && awk -f "$here/summarize.awk" "$tmp/$k.csv"
done
