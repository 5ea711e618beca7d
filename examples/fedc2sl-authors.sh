#!/bin/sh
# fedc2sl against the FedC2SL authors' code (wangzhaoyu07/FedC2SL, Python) on the data they
# publish with it: their synthetic files (d = 10, 20, 50, 100 variables, 10,000 discrete rows,
# rounds 0..29, the true DAG pickled beside each) and their discretised Sachs data.  For each
# size and client count K it prints one line per file, then a table of the mean SHD (causal-
# learn's, of each CPDAG against the true DAG's CPDAG, as their script scores) and the mean
# processor time of both, back to back on one processor (taskset -c 1 when there is one):
# theirs is time.process_time() around their pc(data, 0.05, 'fed_cit', ...) call (the data
# already read), fedbn's is its process's (getrusage), the files of one row in one process,
# data loading included.  fedc2sl sums the clients' tables exactly, so its CPDAG is pc's on
# the pooled rows; their chi-square is an estimate from random projections of each client's
# table (50 samples per stratum), so their SHD varies from run to run.
#   sh examples/fedc2sl-authors.sh [quick] [AUTHORS] [CAUSAL_LEARN] [FEDBN]
# AUTHORS: their checkout (default ../ref/wangzhaoyu07+FedC2SL beside the source tree, or
# $FEDC2SL_DIR); CAUSAL_LEARN: a causal-learn checkout (default ../ref/py-why+causal-learn, or
# $CAUSAL_LEARN_DIR): its tag 0.1.2.8, the version their README pins, is taken when it has
# one.  Their code needs /usr/bin/python3 with numpy, pandas, scipy, networkx, scikit-learn,
# tqdm and igraph (Debian packages); pgmpy, which only their data simulation imports, is
# replaced by an empty module.  When their code cannot run, its column is left out and the
# missing module named.  SIZES, REPEATS, KS and SACHS_KS choose the rows (default: d = 10
# and 20, 10 files each, K = 10, Sachs with K = 2, 8, 32, 64; quick: d = 10, 2 files, K = 10,
# Sachs with K = 4).
here=$(cd "$(dirname "$0")" && pwd)
quick=no
[ "${1:-}" = quick ] && quick=yes && shift
authors=${1:-${FEDC2SL_DIR:-$here/../../ref/wangzhaoyu07+FedC2SL}}
cl=${2:-${CAUSAL_LEARN_DIR:-$here/../../ref/py-why+causal-learn}}
fedbn=${3:-${FEDBN:-$here/../build/fedbn}}
py=/usr/bin/python3
[ -d "$authors/FedC2SL" ] && authors=$authors/FedC2SL
[ -d "$authors/data/synthetic/iid" ] ||
	{ echo "cannot read the authors' data in $authors/data/synthetic/iid" >&2; exit 1; }
[ -d "$cl/causallearn" ] || { echo "no causal-learn checkout in $cl" >&2; exit 1; }
[ -x "$py" ] || { echo "$py is needed to read their truth files and score" >&2; exit 1; }
if [ $quick = yes ]; then
	sizes=${SIZES:-10} repeats=${REPEATS:-2} ks=${KS:-10} sachs_ks=${SACHS_KS:-4}
else
	sizes=${SIZES:-10,20} repeats=${REPEATS:-10} ks=${KS:-10} sachs_ks=${SACHS_KS:-2,8,32,64}
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# causal-learn as their README pins it, when the checkout has the tag
if git -C "$cl" rev-parse -q --verify 0.1.2.8 >/dev/null 2>&1 &&
	git -C "$cl" archive 0.1.2.8 causallearn 2>/dev/null | tar -x -C "$tmp" 2>/dev/null &&
	[ -d "$tmp/causallearn" ]; then
	cl=$tmp
	echo "causal-learn 0.1.2.8 (their README's version)"
else
	echo "causal-learn from $cl as it is"
fi
pin=
command -v taskset >/dev/null 2>&1 && taskset -c 1 true 2>/dev/null && pin="taskset -c 1"
echo "processor: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 \
	$pin "$py" "$here/fedc2sl-authors.py" "$fedbn" "$authors" "$cl" "$sizes" "$repeats" \
	"$ks" "$sachs_ks"
