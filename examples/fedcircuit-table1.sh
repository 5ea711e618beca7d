#!/bin/sh
# The federated-circuits paper's Table 1: test log-likelihood of centralised LearnSPN and of one-pass federated circuits over
# horizontal (5 clients, rows ordered by class: the paper's label shift), vertical (2) and
# hybrid (2 clients, one shared variable, 0.3 of the rows held by both) splits of the
# training rows; vertical and hybrid clients hold random sets of the variables; hybrid is
# also run followed by 5 and 10 distributed EM rounds on the server's weights over the rows
# both clients hold (fedcircuit-em; the authors' code runs 5).
# HYBRID_DRAW=replace draws the hybrid clients' rows as the authors' code does (split's
# draw=replace, its protocol for reproducing its tables: 0.3 n rows with replacement for both
# clients, n/2 more for each); HYBRID_DRAW=both prints both hybrid rows; default cut.
# Rows shuffled per seed and cut 70 / 15 / 15 %, continuous columns standardised with the
# training rows; mean ± standard error over the seeds (bench/fedcircuit-study.c says more).
#   sh examples/fedcircuit-table1.sh [quick] [DATA_DIR] [BUILD_DIR]     (quick: 1 seed)
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
"$study" table1 "$data/breast_cancer.csv" ${SEEDS:-5} 0.4 300 draw=${HYBRID_DRAW:-cut}
