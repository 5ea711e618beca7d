#!/bin/sh
# FedPC on the FedPC authors' own alarm sample and client partitions (the files alarm_5000.txt
# and alarm_{3,5,10,15}clients_partition.txt that they publish with their code; not shipped
# here).  Their sample holds 5000 rows of integer codes, one column per alarm.bif variable in
# the network file's order; each partition file lists the client sizes, cut as contiguous
# blocks.  For each K the script runs fedpc with the default small-sample rule (none) and with
# the rule of the authors' code (small=fedpc: a test with fewer than 5 rows per cell of its
# full table counts as dependent), G2 at alpha 0.01, and prints extra, missing and reversed
# edges of the CPDAG and the SHD of its DAG extension.  The paper's Table IV reports, for
# K = 3, 5, 10, 15: reversed 3, 7, 10, 6; extra 0, 7, 7, 7; missing 3, 6, 6, 9; SHD 6, 20, 23, 22.
#   sh examples/fedpc-alarm-authors.sh [quick] DIR [FEDBN] [ALARM_BIF]
# (quick: K = 3 alone; FEDBN defaults to $FEDBN or build/fedbn)
here=$(cd "$(dirname "$0")" && pwd)
quick=no
[ "${1:-}" = quick ] && quick=yes && shift
dir=${1:?give the folder holding alarm_5000.txt and the partition files}
fedbn=${2:-${FEDBN:-$here/../build/fedbn}}
ks="3 5 10 15"
[ $quick = yes ] && ks=3
bif=${3:-$here/../../shared/data/bif/alarm.bif}
[ -r "$dir/alarm_5000.txt" ] || { echo "cannot read $dir/alarm_5000.txt" >&2; exit 1; }
[ -r "$bif" ] || { echo "cannot read $bif: give the alarm network" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# the variable names in the network's order, then the rows as CSV
"$fedbn" --bail --no-pane -c "sample '$bif' n=1 seed=1; save '$tmp/one.csv';
	truth save '$tmp/truth.csv'" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
{ head -n 1 "$tmp/one.csv"; tr -d '\r' < "$dir/alarm_5000.txt" | tr -s ' ' ','; } > "$tmp/data.csv"
printf '%-4s %-12s %6s %8s %9s %6s\n' K small extra missing reversed SHD-DAG
for k in $ks; do
	part="$dir/alarm_${k}clients_partition.txt"
	[ -r "$part" ] || { echo "cannot read $part" >&2; exit 1; }
	sizes=$(tr -d '\r' < "$part" | paste -sd, -)
	for small in none fedpc; do
		"$fedbn" --bail --no-pane -c "load '$tmp/data.csv' discrete=all;
			truth load '$tmp/truth.csv';
			split horizontal $k sizes=$sizes shuffle=no; algo fedpc;
			set test=g2 alpha=0.01 small=$small; run; result" > "$tmp/log" 2>&1 ||
			{ cat "$tmp/log"; exit 1; }
		awk -v k="$k" -v small="$small" '
			/^against the truth:/ {
				match($0, /extra [0-9.]+/); e = substr($0, RSTART + 6, RLENGTH - 6)
				match($0, /missing [0-9.]+/); m = substr($0, RSTART + 8, RLENGTH - 8)
				match($0, /reversed [0-9.]+/); r = substr($0, RSTART + 9, RLENGTH - 9)
				cyc = index($0, "has a cycle") ? "cycle" : ""
			}
			/^as DAGs/ { match($0, /SHD [0-9.]+/); dag = substr($0, RSTART + 4, RLENGTH - 4) }
			END { printf "%-4s %-12s %6s %8s %9s %6s\n", k, small, e, m, r,
			      dag != "" ? dag : (cyc != "" ? "cycle" : "-") }' "$tmp/log"
	done
done
