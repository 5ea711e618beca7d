#!/bin/sh
# fedfci against FedC2SL's FedFCI on the data its repository ships (data/synthetic/iid/fci:
# 10 files each of 10, 20, 50 and 100 discrete variables, 10,000 rows, true PAGs pickled).
# Theirs: fed_fci(indep_test='fed_cit', alpha 0.05, 10 clients), FCI over securely summed
# chi2 tests, timed by time.process_time around the call.  Ours, 10 clients, chi2, alpha
# 0.05: fedfci (FedPC's votes), fedfci-pooled (FedC2SL's FedFCI: the same tables summed,
# whose PAG is all:fci's) and fedfci-pooled compat=causal-learn (causal-learn's fci, on which
# theirs is built), timed by /usr/bin/time over the whole fedbn process (reading the CSV
# included).  Both on CPU 1
# (taskset -c 1), file by file back to back; SHD is causal-learn's SHD between PAGs for both.
# Prints mean SHD and processor seconds per size.
#   sh examples/fedfci-authors.sh [quick]        (quick: 2 files per size)
# FEDC2SL_DIR (default ../ref/wangzhaoyu07+FedC2SL beside the source tree) is the authors'
# checkout, CAUSAL_LEARN_DIR (default ../ref/py-why+causal-learn) causal-learn's git checkout.
# FedC2SL needs causal-learn 0.1.2.8 (taken from the checkout's tag by git archive) and
# imports modules the FCI path never calls (momentchi2, tqdm, igraph, pgmpy): empty
# stand-ins are made for them in a scratch folder.
here=$(cd "$(dirname "$0")" && pwd)
fedbn=${FEDBN:-$here/../build/fedbn}
ref=${FEDC2SL_DIR:-$here/../../ref/wangzhaoyu07+FedC2SL}/FedC2SL
cl=${CAUSAL_LEARN_DIR:-$here/../../ref/py-why+causal-learn}
py=/usr/bin/python3
rounds="0 1 2 3 4 5 6 7 8 9"
[ "$1" = quick ] && rounds="0 1"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
git -C "$cl" archive 0.1.2.8 causallearn 2>/dev/null | tar -x -C "$tmp"
mkdir -p "$tmp/tqdm" "$tmp/momentchi2" "$tmp/igraph" "$tmp/pgmpy/models" \
	"$tmp/pgmpy/factors/discrete" "$tmp/pgmpy/sampling"
printf 'class tqdm:\n    def __init__(self, it=None, *a, **k): self.it = it\n    def __iter__(self): return iter(self.it or [])\n    def __getattr__(self, n): return lambda *a, **k: None\n' > "$tmp/tqdm/__init__.py"
echo 'from tqdm import tqdm' > "$tmp/tqdm/auto.py"
echo 'hbe = sw = lpb4 = None' > "$tmp/momentchi2/__init__.py"
touch "$tmp/igraph/__init__.py" "$tmp/pgmpy/__init__.py" "$tmp/pgmpy/models/__init__.py" \
	"$tmp/pgmpy/factors/__init__.py"
echo 'BayesianModel = None' > "$tmp/pgmpy/models/BayesianModel.py"
echo 'TabularCPD = None' > "$tmp/pgmpy/factors/discrete/__init__.py"
echo 'BayesianModelSampling = None' > "$tmp/pgmpy/sampling/__init__.py"
export PYTHONPATH="$tmp"
# ours ALGO FILE: SHD and processor seconds of fedbn running ALGO on FILE
ours() {
	taskset -c 1 /usr/bin/time -f '%U %S' -o "$tmp/t" "$fedbn" --bail --no-pane -c "
		load $2 discrete=all; split horizontal 10 shuffle=no; algo $1; set test=chi2 $3;
		run; result" > "$tmp/r" 2>&1 || { cat "$tmp/r" >&2; exit 1; }
	printf '%s %s\n' "$($py "$here/fedfci-authors.py" score "${2%.csv}.pkl" < "$tmp/r")" \
		"$(awk '{ print $1 + $2 }' "$tmp/t")"
}
printf '%4s %8s %10s %10s %9s %8s %10s %10s %9s %8s %8s %8s\n' d SHD-them SHD-fedfci \
	SHD-pooled SHD-p-cl cpu-them cpu-fedfci cpu-pooled cpu-p-cl x-fedfci x-pooled x-p-cl
for d in 10 20 50 100; do
	for r in $rounds; do
		f=$ref/data/synthetic/iid/fci/fci_synthetic_data_node_num_${d}_round_$r.csv
		them=$(taskset -c 1 $py "$here/fedfci-authors.py" theirs "$ref" "$f" | cut -d' ' -f2-)
		echo "$them $(ours fedfci "$f") $(ours fedfci-pooled "$f")" \
			"$(ours fedfci-pooled "$f" compat=causal-learn)"
	done | awk -v d=$d '{ n++; s1 += $1; t1 += $2; s2 += $3; t2 += $4; s3 += $5; t3 += $6
		s4 += $7; t4 += $8 }
		END { printf "%4d %8.1f %10.1f %10.1f %9.1f %8.3f %10.3f %10.3f %9.3f %7.0fx %7.0fx " \
		      "%7.0fx\n", d, s1 / n, s2 / n, s3 / n, s4 / n, t1 / n, t2 / n, t3 / n, t4 / n,
		      t1 / t2, t1 / t3, t1 / t4 }'
done
