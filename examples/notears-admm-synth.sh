#!/bin/sh
# NOTEARS-ADMM against NOTEARS on all data, on the shared linear-Gaussian files: rows split
# into K contiguous equal blocks, the paper's defaults (lambda 0.01, threshold 0.3).
#   sh examples/notears-admm-synth.sh [quick] [DATA_DIR] [FEDBN]   (quick: A_d10_n30_s1 alone)
# DATA_DIR defaults to ../shared/data beside the source tree, FEDBN to $FEDBN or build/fedbn.  The authors' figures, for
# comparison: notears-admm SHD 6, 6, 1 on B_d20_n256_s1..3 (K = 8) and 3, 5, 15, 21 on
# A_d10..A_d100 (K = 10); notears on all data 0, 0, 0 and 8, 20, 27, 4.  notears-admm runs
# twice: with the default W-step solver (OWL-QN) and with solver=lbfgsb, the solver the
# authors' code calls (L-BFGS-B with scipy's stopping rules; about 5 times slower).
here=$(cd "$(dirname "$0")" && pwd)
quick=no
[ "${1:-}" = quick ] && quick=yes && shift
data=${1:-$here/../../shared/data}/synth
fedbn=${2:-${FEDBN:-$here/../build/fedbn}}
specs="B_d20_n256_s1:8 B_d20_n256_s2:8 B_d20_n256_s3:8 A_d10_n30_s1:10 A_d20_n60_s1:10
	A_d50_n150_s1:10 A_d100_n300_s1:10"
[ $quick = yes ] && specs=A_d10_n30_s1:10
[ -d "$data" ] || { echo "no data in $data: give the shared data folder" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for spec in $specs; do
	tag=${spec%:*} k=${spec#*:}
	"$fedbn" --bail -c "load '$data/$tag/X.csv'; truth load '$data/$tag/truth.csv';
		split horizontal $k shuffle=no; algo notears-admm; run; set solver=lbfgsb; run;
		algo all:notears; run; compare out='$tmp/$tag.csv'" > "$tmp/log" 2>&1 ||
		{ cat "$tmp/log"; exit 1; }
	tail -n +2 "$tmp/$tag.csv" | awk -F, -v OFS=, -v tag="$tag" \
		'$1 == 2 { $2 = "notears-admm(lbfgsb)" } { print tag, $0 }' >> "$tmp/all.csv"
done
awk -f "$here/summarize.awk" "$tmp/all.csv"
