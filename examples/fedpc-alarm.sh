#!/bin/sh
# The FedPC paper's alarm experiment (§4, Table IV): 5000 rows sampled from alarm.bif (sample
# seed 1), split unevenly over K = 3, 5, 10 and 15 clients (each at least n/(2K) rows; split
# seeds 1..SEEDS), G2 tests at alpha 0.01.  The paper reports SHD 6, 20, 23, 22 for FedPC and
# 22.7, 30.4, 44.8, 70.3 for PC-Avg (sep:pc).  SHD is the FedPC paper's: every CPDAG extended to
# a DAG by Dor and Tarsi, then extra + missing + reversed (compare's SHD-DAG column).  Mean ± standard error over the split seeds.
#   sh examples/fedpc-alarm.sh [SEEDS] [FEDBN] [ALARM_BIF]      (SEEDS = 10)
here=$(cd "$(dirname "$0")" && pwd)
seeds=${1:-10}
fedbn=${2:-$here/../build/fedbn}
bif=${3:-$here/../../shared/data/bif/alarm.bif}
[ -r "$bif" ] || { echo "cannot read $bif: give the alarm network" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
t="test=g2 alpha=0.01"
labels="fedpc fedpc(code) fedpc-simple1 fedpc-simple2 sep:pc all:pc"
for k in 3 5 10 15; do
	for seed in $(seq 1 "$seeds"); do
		"$fedbn" --bail --no-pane -c "sample '$bif' n=5000 seed=1;
			split horizontal $k sizes=uneven seed=$seed; set threads=2;
			algo fedpc; set $t; run; set vote_rule=code; run;
			algo fedpc-simple1; set $t; run;
			algo fedpc-simple2; set $t; run;
			algo sep:pc; set $t; run; algo all:pc; set $t; run;
			compare out='$tmp/run.csv'" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
		tail -n +2 "$tmp/run.csv" | awk -F, -v OFS=, -v k="K=$k" -v labels="$labels" \
			'BEGIN { split(labels, l, " ") } { $2 = l[$1]; print k, $0 }' >> "$tmp/all.csv"
	done
done
awk -v shd=dag -f "$here/summarize.awk" "$tmp/all.csv"
