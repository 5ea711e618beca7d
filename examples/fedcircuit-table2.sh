#!/bin/sh
# The federated-circuits paper's Table 2: one-pass training against one-pass followed by 5
# distributed EM rounds on the server's weights, breast cancer split vertically over 2
# clients (random halves of the variables), 10 seeds, threshold 0.4, min_instances_slice
# 300, K = 2 clusters.  Rows shuffled per seed and cut 70 / 15 / 15 %;
# examples/fedcircuit-setup.sh says the rest.
#   sh examples/fedcircuit-table2.sh [quick] [DATA_DIR] [BUILD_DIR]     (quick: 1 seed;
#                                                       SEEDS=N in the environment)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fedcircuit-setup.sh"
f=$data/breast_cancer.csv cut="test=0.15 valid=0.15" n=${SEEDS:-10}
set0="threshold=0.4 min_instances_slice=300 clusters=2"
echo "Table 2, breast cancer, vertical 2 clients, $n seeds: test log-likelihood"
fc_row "one-pass" "$f" "$cut" "$n" "vertical 2 random_cols=yes" fedcircuit "$set0" ll
fc_row "one-pass + EM" "$f" "$cut" "$n" "vertical 2 random_cols=yes" fedcircuit-em "$set0 em=5" ll
