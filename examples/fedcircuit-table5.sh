#!/bin/sh
# The federated-circuits paper's Table 5 (FC[PC]): accuracy and F1 (of the rarest class) of
# the class predicted as the argmax of the federated log p(class, x), centralised and in the three settings (horizontal
# rows shuffled), on breast cancer (the paper's settings 0.4 / 300), credit-g and diabetes
# (SPFlow's learn_mspn defaults 0.3 / 200: the paper gives none for them).
# Rows shuffled per seed and cut 70 / 15 / 15 %, continuous columns standardised with the
# training rows; mean ± standard error over the seeds (bench/fedcircuit-study.c says more).
#   sh examples/fedcircuit-table5.sh [DATA_DIR] [BUILD_DIR]     (SEEDS=N in the environment)
# DATA_DIR defaults to ../shared/data beside the source tree.
here=$(cd "$(dirname "$0")" && pwd)
data=${1:-$here/../../shared/data}/tabular
build=${2:-$here/../build}
[ -d "$data" ] || { echo "no data in $data: give the shared data folder" >&2; exit 1; }
make -C "$build" bench/fedcircuit-study >/dev/null || exit 1
study=$build/bench/fedcircuit-study
"$study" table5 "$data/breast_cancer.csv" ${SEEDS:-5} 0.4 300
"$study" table5 "$data/credit_g.csv" ${SEEDS:-5}
"$study" table5 "$data/diabetes.csv" ${SEEDS:-5}
