#!/bin/sh
# FedPC on the shared linear-Gaussian files B_d20_n256_s1..3: rows cut into 8 contiguous
# equal blocks, Fisher-z, alpha 0.01.  The FedPC authors' code gets SHD 16, 18 and 5 (mean 13)
# there.  SHD is the FedPC paper's: every CPDAG extended to a DAG by Dor and Tarsi, then extra
# + missing + reversed (compare's SHD-DAG column).
#   sh examples/fedpc-synth.sh [quick] [DATA_DIR] [FEDBN]     (quick: B_d20_n256_s1 alone)
# DATA_DIR defaults to ../shared/data beside the source tree, FEDBN to $FEDBN or build/fedbn.
here=$(cd "$(dirname "$0")" && pwd)
quick=no
[ "${1:-}" = quick ] && quick=yes && shift
data=${1:-$here/../../shared/data}/synth
fedbn=${2:-${FEDBN:-$here/../build/fedbn}}
tags="B_d20_n256_s1 B_d20_n256_s2 B_d20_n256_s3"
[ $quick = yes ] && tags=B_d20_n256_s1
[ -d "$data" ] || { echo "no data in $data: give the shared data folder" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
t="test=fisher-z alpha=0.01"
labels="fedpc fedpc(code) fedpc-simple1 fedpc-simple2 sep:pc all:pc"
for tag in $tags; do
	"$fedbn" --bail --no-pane -c "load '$data/$tag/X.csv'; truth load '$data/$tag/truth.csv';
		split horizontal 8 shuffle=no;
		algo fedpc; set $t; run; set vote_rule=code; run;
		algo fedpc-simple1; set $t; run;
		algo fedpc-simple2; set $t; run;
		algo sep:pc; set $t; run; algo all:pc; set $t; run;
		compare out='$tmp/$tag.csv'" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
	tail -n +2 "$tmp/$tag.csv" | awk -F, -v OFS=, -v tag="$tag" -v labels="$labels" \
		'BEGIN { split(labels, l, " ") } { $2 = l[$1]; print tag, $0 }' >> "$tmp/each.csv"
done
echo "per dataset:"
awk -v shd=dag -f "$here/summarize.awk" "$tmp/each.csv"
echo "mean over the $(echo $tags | wc -w) (the authors' FedPC over the three: 13):"
sed 's/^B_d20_n256_s[0-9]*,/B_d20_K8,/' "$tmp/each.csv" > "$tmp/all.csv"
awk -v shd=dag -f "$here/summarize.awk" "$tmp/all.csv"
