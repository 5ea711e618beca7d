#!/bin/sh
# The federated-circuits paper's Table 1: test log-likelihood of centralised LearnSPN and of
# one-pass federated circuits over horizontal (5 clients, rows ordered by class: the
# paper's label shift), vertical (2) and hybrid (2) splits, and hybrid followed by 5 and 10
# distributed EM rounds on the server's weights over the rows both clients hold
# (fedcircuit-em; the authors' code runs 5), on breast cancer with the paper's settings for
# it (threshold 0.4, min_instances_slice 300).  Rows shuffled per seed and cut 70 / 15 /
# 15 %; examples/fedcircuit-setup.sh says the rest.
#   sh examples/fedcircuit-table1.sh [quick] [DATA_DIR] [BUILD_DIR]     (quick: 1 seed)
# (SEEDS=N, HYBRID_DRAW=cut|replace|both, SHARED=S, LEAVES=parametric in the environment)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fedcircuit-setup.sh"
f=$data/breast_cancer.csv cut="test=0.15 valid=0.15" n=${SEEDS:-5}
set0="threshold=0.4 min_instances_slice=300"
echo "Table 1, breast cancer, $n seeds: test log-likelihood, mean ± standard error"
fc_row "centralised (not fed.)" "$f" "$cut" "$n" "" circuit "$set0" ll
fc_row "horizontal, 5 clients" "$f" "$cut" "$n" "horizontal 5 order=diagnosis" fedcircuit "$set0" ll
fc_row "vertical, 2 clients" "$f" "$cut" "$n" "vertical 2 random_cols=yes" fedcircuit "$set0" ll
fc_hybrid "hybrid, 2 clients" "$f" "$cut" "$n" 2 fedcircuit "$set0" ll
fc_hybrid "hybrid 2 + EM 5" "$f" "$cut" "$n" 2 fedcircuit-em "$set0 em=5" ll
fc_hybrid "hybrid 2 + EM 10" "$f" "$cut" "$n" 2 fedcircuit-em "$set0 em=10" ll
