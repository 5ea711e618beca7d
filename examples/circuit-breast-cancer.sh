#!/bin/sh
# The centralised circuit learner against SPFlow on the shared breast-cancer table, on the
# federated-circuits paper's rows: its 398 / 85 / 86 train / valid / test split
# (scikit-learn's train_test_split, stratified by the diagnosis, test_size 0.3 then 0.5,
# random_state 42; examples/breast-cancer-split.txt names each row's part), the 30
# measurements standardised with the training rows' mean and population sd, the diagnosis
# a discrete column (load's standardize=yes).  Settings: SPFlow's
# learn_mspn(min_instances_slice=300, threshold=0.4).
# SPFlow (branch legacy, commit bfb26e34) reaches test log-likelihood -38.97 on these rows;
# its continuous histograms are not normalised densities, fedbn's are (help algo circuit),
# so the two log-likelihoods measure slightly different models.  Prints the test
# log-likelihood (mean +- standard error), classification of the diagnosis, and the
# learning time (the best of five; quick: of one).
#   sh examples/circuit-breast-cancer.sh [quick] [DATA_DIR] [FEDBN]
# DATA_DIR defaults to ../shared/data beside the source tree, FEDBN to $FEDBN or build/fedbn.
here=$(cd "$(dirname "$0")" && pwd)
quick=no
[ "${1:-}" = quick ] && quick=yes && shift
data=${1:-$here/../../shared/data}/tabular/breast_cancer.csv
fedbn=${2:-${FEDBN:-$here/../build/fedbn}}
[ -f "$data" ] || { echo "no $data: give the shared data folder" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# split the rows by the part file; load standardises the 30 measurements with the training rows
awk -F, -v dir="$tmp" -v parts="$here/breast-cancer-split.txt" '
NR == 1 { print > (dir "/train.csv"); print > (dir "/valid.csv"); print > (dir "/test.csv"); next }
{ getline part < parts; print > (dir "/" part ".csv") }' "$data"
again="set seed=17; run; set seed=17; run; set seed=17; run; set seed=17; run"
[ $quick = yes ] && again=
"$fedbn" --bail --no-pane -c "load '$tmp/train.csv' '$tmp/valid.csv' '$tmp/test.csv'
	standardize=yes; algo circuit; set min_instances_slice=300 threshold=0.4;
	run; result; classify diagnosis; $again" \
	> "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
best=$(sed -n 's/^circuit finished: 2 rounds, \([0-9.]*\) s$/\1/p' "$tmp/log" | sort -n | head -1)
test=$(sed -n 's/^  test   \(.*\)  (86 rows)$/\1/p' "$tmp/log" | head -1)
acc=$(sed -n 's/^accuracy \([0-9.]*\) .*F1 \([0-9.]*\).*/\1 \2/p' "$tmp/log")
printf '%-28s %-20s %-10s %-8s %s\n' "learner" "test LL" "accuracy" "F1" "learning time"
printf '%-28s %-20s %-10s %-8s %s\n' "SPFlow learn_mspn (legacy)" "-38.97" "-" "-" "about 1.5 s"
printf '%-28s %-20s %-10s %-8s %s\n' "fedbn circuit" "$test" ${acc% *} ${acc#* } "$best s"
