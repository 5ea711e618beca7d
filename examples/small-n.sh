#!/bin/sh
# The NOTEARS-ADMM paper's Figure 1 set-up: ER graphs with d edges, linear Gaussian, n = 3d
# rows over K = 10 clients (d = 10, 20, 50), several seeds; notears-admm against voting and
# averaging.  In the paper notears-admm has the lowest SHD of the three.
#   sh examples/small-n.sh [SEEDS] [FEDBN]                 (SEEDS = 10)
here=$(cd "$(dirname "$0")" && pwd)
seeds=${1:-10}
fedbn=${2:-$here/../build/fedbn}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for d in 10 20 50; do
	for seed in $(seq 1 "$seeds"); do
		"$fedbn" --bail -c "gen er d=$d edges=$d n=$((3 * d)) seed=$seed; split horizontal 10;
			set threads=2; algo notears-admm; run; algo voting:notears; run;
			algo avg:notears; run; compare out='$tmp/run.csv'" > "$tmp/log" 2>&1 ||
			{ cat "$tmp/log"; exit 1; }
		tail -n +2 "$tmp/run.csv" | sed "s/^/d=$d,/" >> "$tmp/all.csv"
	done
done
awk -f "$here/summarize.awk" "$tmp/all.csv"
