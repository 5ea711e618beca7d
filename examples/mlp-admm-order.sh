#!/bin/sh
# The NOTEARS-ADMM paper's nonlinear comparison (§6.4), on fedbn's own simulator: ER graphs
# with d = 20 variables and 20 edges, the mlp SEM, 512 rows in all cut into K = 2, 4, 8, 16
# contiguous clients; notears-mlp-admm against voting:notears-mlp and avg:notears-mlp (each
# client runs NOTEARS-MLP alone), every method with its paper defaults.  Prints mean SHD,
# TPR and FDR (± standard error) per K and method.  The paper's ordering: notears-mlp-admm
# has the lowest SHD at every K.
#   sh examples/mlp-admm-order.sh [SEEDS] [FEDBN] [KS]
# SEEDS is a count from seed 1 (default 10) or a range FIRST-LAST (e.g. 2-6, to add seeds to
# a table already made), KS defaults to "2 4 8 16"; each K's table is printed when its seeds
# are done.  The per-client NOTEARS-MLP runs of voting: and avg: dominate the time (run it
# with nice).
here=$(cd "$(dirname "$0")" && pwd)
seeds=${1:-10}
case $seeds in
*-*) first=${seeds%-*} last=${seeds#*-} ;;
*) first=1 last=$seeds ;;
esac
fedbn=${2:-$here/../build/fedbn}
ks=${3:-2 4 8 16}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for k in $ks; do
	s=$first
	while [ "$s" -le "$last" ]; do
		"$fedbn" --bail -c "gen er d=20 edges=20 n=512 sem=mlp seed=$s;
			split horizontal $k shuffle=no; algo notears-mlp-admm; run;
			algo voting:notears-mlp; run; algo avg:notears-mlp; run;
			compare out='$tmp/run.csv'" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
		tail -n +2 "$tmp/run.csv" | sed "s/^/K=$k,/" >> "$tmp/$k.csv"
		s=$((s + 1))
	done
	awk -f "$here/summarize.awk" "$tmp/$k.csv" # one table per K, as soon as it is done
done
