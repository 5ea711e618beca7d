#!/bin/sh
# The NOTEARS-ADMM paper's Figure 2 / 6 set-up: ER graphs with d edges, linear Gaussian,
# n = 256 rows split evenly over K = 2 .. 64 clients, several seeds; notears-admm against the
# voting, averaging and best-of baselines.  The paper at K = 64: TPR 0.78 for notears-admm,
# 0.05 voting, 0.25 averaging, 0.33 best.
#   sh examples/clients-sweep.sh [D] [SEEDS] [FEDBN]      (D = 20, SEEDS = 10)
here=$(cd "$(dirname "$0")" && pwd)
d=${1:-20}
seeds=${2:-10}
fedbn=${3:-$here/../build/fedbn}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for k in 2 4 8 16 32 64; do
	for seed in $(seq 1 "$seeds"); do
		"$fedbn" --bail -c "gen er d=$d edges=$d n=256 seed=$seed; split horizontal $k;
			set threads=2; algo notears-admm; run; algo voting:notears; run;
			algo avg:notears; run; algo best:notears; run;
			compare out='$tmp/run.csv'" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
		tail -n +2 "$tmp/run.csv" | sed "s/^/K=$k,/" >> "$tmp/all.csv"
	done
done
awk -f "$here/summarize.awk" "$tmp/all.csv"
