#!/bin/sh
# fedfci against FedC2SL's FedFCI on the data its repository ships (data/synthetic/iid/fci:
# 10 files each of 10, 20, 50 and 100 discrete variables, 10,000 rows, true PAGs pickled).
# Theirs: fed_fci(indep_test='fed_cit', alpha 0.05, 10 clients), FCI over securely summed
# chi2 tests, timed by time.process_time around the call.  Ours, 10 clients, chi2, alpha
# 0.05: fedfci (FedPC's votes), fedfci-pooled (FedC2SL's FedFCI: the same tables summed,
# whose PAG is all:fci's) and fedfci-pooled compat=causal-learn (causal-learn's fci, on which
# theirs is built), timed by perf stat's task-clock over the whole fedbn process and, less its
# start (the same process reading and splitting the file alone), over the run.  Both on CPU
# 1 (taskset -c 1), file by file back to back; SHD is causal-learn's SHD between PAGs for
# both.  Prints mean SHD and processor seconds per size.
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
# cpu CMD...: processor seconds of CMD on CPU 1 (perf stat's task-clock; /usr/bin/time's
# 10 ms steps without perf), its output in $tmp/r
cpu() {
	if command -v perf > /dev/null 2>&1; then
		perf stat -x, -e task-clock -o "$tmp/t" taskset -c 1 "$@" > "$tmp/r" 2>&1 ||
			{ cat "$tmp/r" >&2; exit 1; }
		awk -F, '$3 == "task-clock" { print $1 / 1000 }' "$tmp/t"
	else
		taskset -c 1 /usr/bin/time -f '%U %S' -o "$tmp/t" "$@" > "$tmp/r" 2>&1 ||
			{ cat "$tmp/r" >&2; exit 1; }
		awk '{ print $1 + $2 }' "$tmp/t"
	fi
}
# ours FILE ALGO [WORDS]: SHD and processor seconds of fedbn running ALGO on FILE
ours() {
	t=$(cpu "$fedbn" --bail --no-pane -c "load $1 discrete=all; split horizontal 10
		shuffle=no; algo $2; set test=chi2 $3; run; result")
	printf '%s %s\n' "$($py "$here/fedfci-authors.py" score "${1%.csv}.pkl" < "$tmp/r")" "$t"
}
printf 'mean per file; cpu: processor seconds (theirs: the fed_fci call; ours: the whole\n'
printf 'fedbn process, start: the same process reading and splitting the file alone);\n'
printf 'x: their cpu over ours, all: whole process, run: less start\n'
printf '%4s %6s %6s %6s %6s %7s %7s %7s %7s %7s %6s %6s %6s %6s\n' d SHD SHD SHD SHD cpu cpu \
	cpu cpu cpu x x x x
printf '%4s %6s %6s %6s %6s %7s %7s %7s %7s %7s %6s %6s %6s %6s\n' '' them fedfci pooled p-cl \
	them fedfci pooled p-cl start fedfci fedfci p-cl p-cl
printf '%4s %6s %6s %6s %6s %7s %7s %7s %7s %7s %6s %6s %6s %6s\n' '' '' '' '' '' '' '' '' '' \
	'' all run all run
for d in 10 20 50 100; do
	for r in $rounds; do
		f=$ref/data/synthetic/iid/fci/fci_synthetic_data_node_num_${d}_round_$r.csv
		them=$(taskset -c 1 $py "$here/fedfci-authors.py" theirs "$ref" "$f" | cut -d' ' -f2-)
		start=$(cpu "$fedbn" --bail --no-pane -c "load $f discrete=all; split horizontal 10
			shuffle=no")
		echo "$them $(ours "$f" fedfci) $(ours "$f" fedfci-pooled)" \
			"$(ours "$f" fedfci-pooled compat=causal-learn) $start"
	done | awk -v d=$d '{ n++; for (c = 1; c <= 9; c++) s[c] += $c }
		END { printf "%4d %6.1f %6.1f %6.1f %6.1f %7.3f %7.3f %7.3f %7.3f %7.3f %5.0fx " \
		      "%5.0fx %5.0fx %5.0fx\n", d, s[1] / n, s[3] / n, s[5] / n, s[7] / n, s[2] / n,
		      s[4] / n, s[6] / n, s[8] / n, s[9] / n, s[2] / s[4], s[2] / (s[4] - s[9]),
		      s[2] / s[8], s[2] / (s[8] - s[9]) }'
done
