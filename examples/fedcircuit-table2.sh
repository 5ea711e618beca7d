#!/bin/sh
# The federated-circuits paper's Table 2: one-pass training against one-pass followed by 5 distributed EM rounds on the
# server's weights, breast cancer split vertically over 2 clients (random halves of the
# variables), 10 seeds.
# Rows shuffled per seed and cut 70 / 15 / 15 %, continuous columns standardised with the
# training rows; mean ± standard error over the seeds (bench/fedcircuit-study.c says more).
#   sh examples/fedcircuit-table2.sh [quick] [DATA_DIR] [BUILD_DIR]     (quick: 1 seed;
#                                                       SEEDS=N in the environment)
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
"$study" table2 "$data/breast_cancer.csv" ${SEEDS:-10} 0.4 300 2 5
