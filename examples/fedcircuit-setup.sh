# What the federated-circuits table scripts share (sourced with their arguments; no script
# of its own).  Arguments: [quick] [DATA_DIR] [BUILD_DIR]: quick runs 1 seed; DATA_DIR
# defaults to ../shared/data beside the source tree, BUILD_DIR to the folder of $FEDBN or
# build.  Environment: SEEDS=N, HYBRID_DRAW=cut|replace|both (the hybrid rows' protocol:
# split's draw=), SHARED=S (split's shared=, default 0.3), LEAVES=histogram|parametric.
#
# Every table row is one sweep over the seeds, run by fedbn alone: per seed the file is
# loaded with its rows shuffled and cut by the seed (load test= valid= seed=), continuous
# columns standardised by the training rows (standardize=yes), split with the same seed,
# learned and scored on the test rows; the row prints the mean ± standard error over the
# seeds of the test log-likelihood (tables 1 and 2) or of the accuracy and F1 of the last
# column, the class, predicted as the argmax of p(class, x) (table 5; F1 of the class rarer
# in the training rows).  Vertical and hybrid clients hold random sets of the variables
# (random_cols=yes); hybrid clients own disjoint blocks and share one variable
# (overlap=0: "at least two clients have at least one randomly chosen feature in common").
quick=no
if [ "${1:-}" = quick ]; then
	quick=yes
	shift
fi
[ $quick = yes ] && SEEDS=${SEEDS:-1}
data=${1:-$here/../../shared/data}/tabular
if [ -n "${2:-}" ]; then
	fedbn=$2/fedbn
else
	fedbn=${FEDBN:-$here/../build/fedbn}
fi
[ -d "$data" ] || { echo "no data in $data: give the shared data folder" >&2; exit 1; }
[ -x "$fedbn" ] || { echo "no fedbn at $fedbn: build it first (sh setup.sh)" >&2; exit 1; }
draw=${HYBRID_DRAW:-cut}
case $draw in cut | replace | both) ;; *)
	echo "HYBRID_DRAW must be cut, replace or both, not '$draw'" >&2; exit 1 ;;
esac
scratch=$(mktemp -d "${TMPDIR:-/tmp}/fedbn-fc.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT

# fc_row LABEL FILE CUT SEEDS SPLIT ALGO SETTINGS FIGURES: one table row, FILE loaded with
# CUT (load's test= valid=) per seed 1..SEEDS, SPLIT (split's words, or empty: no split),
# ALGO with SETTINGS (set's words), printed as "| LABEL | figures |" where FIGURES is ll
# (test log-likelihood) or class (accuracy and F1)
fc_row() {
	label=$1 file=$2 cut=$3 seeds=$4 split=$5 algo=$6 settings=$7 figures=$8
	class=$(head -n 1 "$file" | awk -F, '{ print $NF }' | tr -d '\r"')
	cell="load $file $cut seed=\${seed} standardize=yes;"
	[ -n "$split" ] && cell="$cell split $split seed=\${seed};"
	cell="$cell algo $algo; set $settings leaves=${LEAVES:-histogram}; run"
	if ! "$fedbn" --no-pane --bail -c "sweep seed=1..$seeds do=\"$cell\" label=$class \
		out=$scratch/row.csv progress=0" > "$scratch/log" 2>&1; then
		echo "fedbn failed on the row '$label':" >&2
		cat "$scratch/log" >&2
		exit 1
	fi
	awk -F, -v label="$label" -v figures="$figures" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
		NR == 2 && figures == "ll" {
			printf "| %-26s | %8.2f ± %.2f |\n", label, $col["test_ll_mean"],
				$col["test_ll_se"] }
		NR == 2 && figures == "class" {
			printf "| %-26s | %.3f ± %.3f | %.3f ± %.3f |\n", label,
				$col["accuracy_mean"], $col["accuracy_se"], $col["class_f1_mean"],
				$col["class_f1_se"] }' "$scratch/row-summary.csv"
}

# fc_hybrid LABEL FILE CUT SEEDS K ALGO SETTINGS FIGURES: the hybrid row of K clients under
# each protocol HYBRID_DRAW asks for
fc_hybrid() {
	for d in cut replace; do
		[ "$draw" = both ] || [ "$draw" = $d ] || continue
		suffix=
		[ "$draw" = both ] && suffix=", $d"
		fc_row "$1$suffix" "$2" "$3" "$4" \
			"hybrid $5 overlap=0 shared=${SHARED:-0.3} draw=$d random_cols=yes" "$6" "$7" "$8"
	done
}
