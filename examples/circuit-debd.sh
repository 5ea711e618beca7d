#!/bin/sh
# The centralised circuit learner on the six binary density-estimation benchmarks (fixed
# train / valid / test splits, ../shared/data/debd) against LearnSPN's published test
# log-likelihoods (Gens and Domingos 2013, Table 2).  Settings are chosen on the validation
# part only, from a small grid (categorical leaves with Laplace smoothing; LearnSPN's G-test
# column splitter at two p-values, slices of at most 50 rows factorised), each learned
# once with seed 17;
# the table shows the chosen setting's test log-likelihood (mean +- standard error) and the
# seconds its learning round took.
#   sh examples/circuit-debd.sh [quick] [DATA_DIR] [FEDBN] [DATASETS]   (quick: nltcs alone)
# DATA_DIR defaults to ../shared/data beside the source tree, FEDBN to $FEDBN or build/fedbn.
here=$(cd "$(dirname "$0")" && pwd)
quick=no
[ "${1:-}" = quick ] && quick=yes && shift
data=${1:-$here/../../shared/data}/debd
fedbn=${2:-${FEDBN:-$here/../build/fedbn}}
sets=${3:-nltcs plants baudio jester bnetflix accidents}
[ $quick = yes ] && sets=${3:-nltcs}
[ -d "$data" ] || { echo "no data in $data: give the shared data folder" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
grid="split=gtest,pvalue=0.001,min_instances_slice=50
split=gtest,pvalue=0.0001,min_instances_slice=50"
# published LearnSPN test log-likelihoods
learnspn() {
	case $1 in nltcs) echo -6.11 ;; plants) echo -12.97 ;; baudio) echo -40.50 ;;
	jester) echo -53.48 ;; bnetflix) echo -57.33 ;; accidents) echo -30.03 ;; esac
}
printf '%-10s %9s %22s %9s %10s  %s\n' dataset LearnSPN "fedbn test LL" valid "learn s" setting
for d in $sets; do
	best=
	for g in $grid; do
		"$fedbn" --bail --no-pane -c "load '$data/$d'; algo circuit;
			set leaves=parametric $(echo "$g" | tr ',' ' '); run; result" \
			> "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
		valid=$(sed -n 's/^  valid  \([-0-9.]*\) .*/\1/p' "$tmp/log")
		test=$(sed -n 's/^  test   \([-0-9.]*\) +- \([0-9.]*\) .*/\1 +- \2/p' "$tmp/log")
		secs=$(sed -n 's/^round    1 .*  \([0-9.]*\) s$/\1/p' "$tmp/log")
		echo "$valid|$test|$secs|$g" >> "$tmp/$d.runs"
	done
	sort -t'|' -k1,1 -g -r "$tmp/$d.runs" | head -1 | awk -F'|' -v d="$d" -v l="$(learnspn "$d")" \
		'{ printf "%-10s %9s %22s %9s %10s  %s\n", d, l, $2, $1, $3, $4 }' | tee -a "$tmp/table"
done
awk '{ split($3, t, " "); s += $3; l += $2; n++ } END { if (n) printf "%-10s %9.2f %22.2f\n", "mean", l / n, s / n }' "$tmp/table"
