#!/bin/sh
# Digests of every algorithm's output: for each learner and combinator, a small federated run
# on generated data (and, when ../shared/data is beside the tree, on a shared file), with every
# round's line, the result (edges, weights, accuracy, rounds, bytes), the ledger and the
# exported edge list; wall times masked.  Prints "NAME SHA256" a line, so that two builds can be
# compared (a change meant to keep behaviour must leave every line the same).
#   sh tests/digest.sh [FEDBN]   (FEDBN defaults to ./fedbn)
#   FB_DIGEST_KEEP=DIR keeps each case's masked output in DIR.
fedbn=${1:-${FEDBN:-./fedbn}}
top=$(cd "$(dirname "$0")/.." && pwd)
shared="$top/../shared/data"
work=$(mktemp -d "${TMPDIR:-/tmp}/fedbn-digest.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
case $fedbn in /*) ;; *) fedbn=$(pwd)/$fedbn ;; esac
cd "$work" || exit 99

# one NAME SETUP ALGO-AND-SETTINGS: run a case and print its digest
one() {
	name=$1 setup=$2 body=$3 after=${4:-export out.csv force=yes}
	printf '%s\n' "$setup" "$body" "run" "result" "clients" "$after" > s.fbn
	OPENBLAS_NUM_THREADS=1 FEDBN_HISTORY=/dev/null "$fedbn" --no-pane -f s.fbn > o.txt 2>&1
	echo "exit $?" >> o.txt
	[ -f out.csv ] && cat out.csv >> o.txt
	rm -f out.csv
	sed -E 's/[0-9]+\.[0-9]+ s\b/#s/g; s/[0-9]+ ms\b/#ms/g' o.txt > m.txt
	[ -n "$FB_DIGEST_KEEP" ] && mkdir -p "$FB_DIGEST_KEEP" && cp m.txt "$FB_DIGEST_KEEP/$name.txt"
	printf '%-24s %s\n' "$name" "$(sha256sum < m.txt | cut -c1-16)"
}

lin="gen er d=6 edges=6 n=400 seed=3; split horizontal 3 shuffle=no"
disc="gen er d=6 edges=6 n=600 seed=3; save disc.csv force=yes"
one notears "$lin" "algo notears"
one notears-admm "$lin" "algo notears-admm"
one notears-admm-t2 "$lin" "algo notears-admm; set threads=2"
one notears-mlp "gen er d=4 edges=4 n=200 seed=3 sem=mlp; split horizontal 2 shuffle=no" "algo notears-mlp"
one notears-mlp-admm "gen er d=4 edges=4 n=200 seed=3 sem=mlp; split horizontal 2 shuffle=no" "algo notears-mlp-admm; run rounds=6"
one pc "$lin" "algo pc"
one pc-chi2 "$disc; load disc.csv discrete=all; split horizontal 3 shuffle=no" "algo pc; set test=chi2"
one ges "$lin" "algo ges"
one fedpc "$lin" "algo fedpc"
one fedpc-t2 "$lin" "algo fedpc; set threads=2"
one fedpc-simple1 "$lin" "algo fedpc-simple1"
one fedpc-simple2 "$lin" "algo fedpc-simple2"
one circuit "$lin" "algo circuit" "circuit save out.csv force=yes"
one fedcircuit "$lin" "algo fedcircuit" "circuit save out.csv force=yes"
one fedcircuit-v "gen er d=6 edges=6 n=400 seed=3; split vertical 2" "algo fedcircuit" "circuit save out.csv force=yes"
one fedcircuit-em "gen er d=6 edges=6 n=400 seed=3; split vertical 2" "algo fedcircuit-em" "circuit save out.csv force=yes"
one mcsl "gen er d=4 edges=4 n=200 seed=3 sem=gp; split horizontal 2 shuffle=no" "algo mcsl; run rounds=3"
one gs-feddag "gen er d=4 edges=4 n=200 seed=3 sem=gp; split horizontal 2 shuffle=no" "algo gs-feddag; run rounds=3"
one as-feddag "gen er d=4 edges=4 n=200 seed=3 sem=gp; split horizontal 2 shuffle=no" "algo as-feddag; run rounds=3"
one as-feddag-linear "$lin" "algo as-feddag-linear; run rounds=3"
one all-notears "$lin" "algo all:notears"
one sep-pc "$lin" "algo sep:pc" "compare"
one voting-notears "$lin" "algo voting:notears"
one avg-notears "$lin" "algo avg:notears"
one best-ges "$lin" "algo best:ges"
if [ -d "$shared" ]; then
	one pc-sachs "load $shared/discrete10000/sachs.csv discrete=all; split horizontal 4 shuffle=no" "algo fedpc; set test=chi2"
	one admm-shared "load $shared/synth/A_d100_n300_s1/X.csv; split horizontal 4 shuffle=no" "algo notears-admm; run rounds=4"
fi
