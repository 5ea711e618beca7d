#!/bin/sh
# The federated-circuits paper's Table 5 (FC[PC]): accuracy and F1 (of the rarest class) of
# the class predicted as the argmax of the federated log p(class, x), centralised and with
# the paper's clients (horizontal 5 and 10, rows shuffled; vertical 2 and 3 and hybrid 2
# and 3, variables in a random order), on breast cancer with the paper's settings for it
# in every split (Table 7: threshold 0.4, min_num_instances 300), credit-g and diabetes
# (SPFlow's learn_mspn defaults 0.3 / 200: the paper gives none for them).  Two more rows
# run horizontal 5 and 10 with cluster_shared=yes, as the authors' code does.
# HYBRID_DRAW=replace draws the hybrid clients' rows as the authors' code does (split's
# draw=replace: 0.3 n rows with replacement for every client, n/K more for each);
# HYBRID_DRAW=both prints the hybrid rows both ways; default cut.
# Rows shuffled per seed and cut as the paper cuts breast cancer (450 / 570 for training,
# the rest for test), continuous columns standardised with the training rows; mean ±
# standard error over the seeds (bench/fedcircuit-study.c says more).
#   sh examples/fedcircuit-table5.sh [quick] [DATA_DIR] [BUILD_DIR]     (quick: 1 seed)
# (SEEDS=N and HYBRID_DRAW=cut|replace|both in the environment)
# DATA_DIR defaults to ../shared/data beside the source tree, BUILD_DIR to the folder of
# $FEDBN or build.
here=$(cd "$(dirname "$0")" && pwd)
quick=no
[ "${1:-}" = quick ] && quick=yes && shift
[ $quick = yes ] && SEEDS=${SEEDS:-1}
data=${1:-$here/../../shared/data}/tabular
build=${2:-$(dirname "${FEDBN:-$here/../build/fedbn}")}
[ -d "$data" ] || { echo "no data in $data: give the shared data folder" >&2; exit 1; }
make -C "$build" bench/fedcircuit-study >/dev/null || exit 1
study=$build/bench/fedcircuit-study
"$study" table5 "$data/breast_cancer.csv" ${SEEDS:-5} 0.4 300 draw=${HYBRID_DRAW:-cut}
"$study" table5 "$data/credit_g.csv" ${SEEDS:-5} draw=${HYBRID_DRAW:-cut}
"$study" table5 "$data/diabetes.csv" ${SEEDS:-5} draw=${HYBRID_DRAW:-cut}
