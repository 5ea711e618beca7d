#!/bin/sh
# Smoke test of the example scripts: each examples/*.sh runs with its quick setting (a real
# small run: few variables, seeds, clients or rounds) in a scratch folder, with FEDBN the
# built program, and must exit 0 and write what it says it writes (its files, or its
# table's lines).  A script that needs ../shared/data beside the source tree is skipped
# with a line saying so when that folder is absent, and so are the MPI scripts without
# mpirun or a fedbn built with Open MPI.  sweep-setup.sh and fedcircuit-setup.sh are no
# scripts of their own (the sweep and the federated-circuits scripts source them).  The
# whole test exits 77 when it ran nothing, 1 when a script failed.
#   sh tests/examples.sh [NAME ...]     (NAME: a script's name without .sh; default all)
top=$(cd "${top_srcdir:-.}" && pwd)
fedbn=${FEDBN:-$(pwd)/fedbn}
case $fedbn in /*) ;; *) fedbn=$(pwd)/$fedbn ;; esac
build=${top_builddir:-$(dirname "$fedbn")}
build=$(cd "$build" && pwd)
shared=$top/../shared/data
ex=$top/examples
work=$(mktemp -d "${TMPDIR:-/tmp}/fedbn-examples.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
FEDBN=$fedbn JOBS=2 OUT=figures OPENBLAS_NUM_THREADS=1
export FEDBN JOBS OUT OPENBLAS_NUM_THREADS
ran=0 failed=0

# skip NAME WHY: say that NAME is not run, and why
skip() {
	echo "SKIP: $1: $2"
}

# needs_shared: whether ../shared/data is there
needs_shared() {
	[ -d "$shared" ]
}

# needs_mpi: whether mpirun is on the path and fedbn was built with Open MPI
needs_mpi() {
	command -v mpirun >/dev/null 2>&1 &&
		grep -q '^#define FB_HAVE_MPI 1' "$build/config.h" 2>/dev/null
}
# LeakSanitizer's options for the MPI scripts: under the sanitizers every rank unwinds its
# stacks fully, so that Open MPI's own memory reaches the libraries tests/lsan.supp names
# (see tests/mpi.sh)
mpi_lsan=${LSAN_OPTIONS:-}
if grep -q '^FB_SAN_FLAGS = .*-fsanitize' "$build/Makefile" 2>/dev/null; then
	mpi_lsan="${LSAN_OPTIONS:-suppressions=$top/tests/lsan.supp}:fast_unwind_on_malloc=0"
fi

# run NAME ARGS...: run examples/NAME.sh with ARGS in a fresh folder work/NAME (its output
# in out.log); 1 after printing the log when it fails
run() {
	name=$1
	shift
	mkdir -p "$work/$name" && cd "$work/$name" || return 1
	echo "== $name $*"
	start=$(date +%s)
	case $name in
	mpi-*) lsan=$mpi_lsan ;;
	*) lsan=${LSAN_OPTIONS:-} ;;
	esac
	if ! LSAN_OPTIONS=$lsan sh "$ex/$name.sh" "$@" > out.log 2>&1; then
		echo "FAIL: $name: exit status not 0; its output:"
		cat out.log
		return 1
	fi
	echo "   $(($(date +%s) - start)) s"
}

# has PATTERN...: each PATTERN (an extended regular expression) matches a line of out.log
has() {
	for p in "$@"; do
		grep -Eq -- "$p" out.log || { echo "FAIL: $name: no line matches '$p'; its output:";
			cat out.log; return 1; }
	done
}

# wrote FILE...: each FILE is there and not empty
wrote() {
	for f in "$@"; do
		[ -s "$f" ] || { echo "FAIL: $name: it did not write $f; its output:"; cat out.log;
			return 1; }
	done
}

# rows FILE N: FILE holds a header and N rows
rows() {
	[ "$(($(wc -l < "$1") - 1))" -eq "$2" ] ||
		{ echo "FAIL: $name: $1 holds $(($(wc -l < "$1") - 1)) rows, not $2"; return 1; }
}

# sweep NAME STEM CELLS PLOTS...: a sweep script wrote STEM.csv with CELLS rows, its
# summaries and the plots STEM-PLOT.png
sweep() {
	n=$1 stem=$2 cells=$3
	shift 3
	run "$n" quick || return 1
	wrote "figures/$stem.csv" "figures/$stem-summary.csv" "figures/$stem-summary.md" || return 1
	for p in "$@"; do
		wrote "figures/$stem-$p.png" || return 1
	done
	rows "figures/$stem.csv" "$cells"
}

# alarm_authors: the FedPC authors' files for K = 3 made from a sample of alarm.bif (integer
# codes, blank-separated, no header; the client sizes one a line), then the script on them
ex_fedpc_alarm_authors() {
	d=$work/authors
	mkdir -p "$d" && "$fedbn" --no-pane --bail -c "sample '$shared/bif/alarm.bif' n=600 seed=3;
		save '$d/alarm.csv'" > /dev/null || return 1
	awk -F, 'NR > 1 { line = ""; for (j = 1; j <= NF; j++) {
		if (!(($j, j) in code)) code[$j, j] = n[j]++
		line = line (j > 1 ? " " : "") code[$j, j] }; print line }' "$d/alarm.csv" \
		> "$d/alarm_5000.txt"
	printf '100\n200\n300\n' > "$d/alarm_3clients_partition.txt"
	run fedpc-alarm-authors quick "$d" && has '^3 +none ' '^3 +fedpc '
}

# check NAME: run one script and check what it wrote; 77 when it is skipped
check() {
	case $1 in
	bench-sweep)
		run bench-sweep quick && has '^sweep: 6 cells ' '^machinery: 6 cells ' ;;
	clients-sweep)
		sweep clients-sweep clients 24 shd tpr ;;
	samples-sweep)
		sweep samples-sweep samples 16 shd tpr ;;
	small-n)
		sweep small-n small-n 6 shd tpr ;;
	fedpc-alarm)
		needs_shared || return 77
		sweep fedpc-alarm alarm 6 shd ;;
	circuit-breast-cancer)
		needs_shared || return 77
		run circuit-breast-cancer quick && has '^fedbn circuit +-[0-9.]+ \+- [0-9.]+ +0\.[0-9]+ ' ;;
	circuit-debd)
		needs_shared || return 77
		run circuit-debd quick && has '^nltcs +-6\.11 +-[0-9.]+ \+- ' '^mean ' ;;
	fedcircuit-table1 | fedcircuit-table2 | fedcircuit-table5)
		needs_shared || return 77
		run "$1" quick "$shared" "$build" && has '^\| one-pass|^\| centralised' ;;
	feddag-authors)
		needs_shared || return 77
		run feddag-authors quick iid && has '^iid as-feddag seed 1 \(4 rounds\): SHD ' \
			'not found: .*; not true: ' ;;
	feddag-tables)
		run feddag-tables quick 1 && has '^t1-er5 ' ;;
	fedpc-alarm-authors)
		needs_shared || return 77
		ex_fedpc_alarm_authors ;;
	fedc2sl-authors)
		# the FedC2SL authors' checkout and causal-learn beside the source tree
		[ -d "${FEDC2SL_DIR:-$top/../ref/wangzhaoyu07+FedC2SL}" ] &&
			[ -d "${CAUSAL_LEARN_DIR:-$top/../ref/py-why+causal-learn}/causallearn" ] &&
			[ -x /usr/bin/python3 ] || return 79
		run fedc2sl-authors quick && has '^\| d=10 +\| +10 \| +2 \|' '^\| sachs +\| +4 \|' ;;
	fedpc-synth)
		needs_shared || return 77
		run fedpc-synth quick && has '^per dataset:' '^B_d20_n256_s1 ' '^B_d20_K8 ' ;;
	notears-admm-synth)
		needs_shared || return 77
		run notears-admm-synth quick && has '^A_d10_n30_s1 .*notears-admm\(lbfgsb\)' ;;
	mlp-admm-order)
		run mlp-admm-order quick && has '^K=2 .*notears-mlp-admm' ;;
	fedfci-authors)
		[ -d "${FEDC2SL_DIR:-$top/../ref/wangzhaoyu07+FedC2SL}" ] &&
			[ -d "${CAUSAL_LEARN_DIR:-$top/../ref/py-why+causal-learn}/causallearn" ] ||
			return 79
		run fedfci-authors quick && has '^ +100 +[0-9.]+ +[0-9.]+ +[0-9.]+ ' ;;
	fci-hidden)
		run fci-hidden quick && has '^  X[0-9]+ <-> X[0-9]+$' '^PAG edges' 'PAG-SHD' &&
			wrote figures/fci-hidden-pc.png figures/fci-hidden-fci.png figures/fci-hidden.md ;;
	dp-sweep)
		needs_shared || return 77
		run dp-sweep quick && has '^\| notears-admm \| 10 \| 1 \| [0-9.]+ \| ' \
			'^\| notears-admm \| inf \| 1 \| [0-9.]+ \| ' '^\| fedc2sl \| 10 \| 1 \| [0-9.]+ \| ' \
			'^\| fedc2sl \| inf \| 1 \| [0-9.]+ \| ' '^\| fedpc \| 10 \| 1 \| [0-9.]+ \| ' \
			'^\| fedpc \| inf \| 1 \| [0-9.]+ \| ' &&
			[ -s figures/dp-sweep-shd.png ] ;;
	knowledge-tiers)
		needs_shared || return 77
		run knowledge-tiers quick && has '^pc +2 +[0-9.]+ +[0-9.]+$' '^fedpc +2 ' ;;
	mixed-data)
		run mixed-data quick && has '^pc-dg +[0-9.]+ ± ' '^ges-dg ' '^fedpc-dg ' ;;
	mpi-sites)
		needs_mpi || return 78
		run mpi-sites quick 2 "$work/mpi-sites/dir" && has '^== the in-process run on the same blocks gives the same' ;;
	mpi-vertical)
		needs_mpi || return 78
		run mpi-vertical quick "$work/mpi-vertical/dir" &&
			has '^== the in-process run on the same column blocks learns the same circuit' ;;
	*)
		echo "FAIL: $1: tests/examples.sh does not know this script: give it a check"
		return 1 ;;
	esac
}

names=$*
[ -n "$names" ] || names=$(cd "$ex" && ls *.sh | sed 's/\.sh$//' | grep -vx -e sweep-setup -e fedcircuit-setup)
for n in $names; do
	check "$n"
	rc=$?
	cd "$work" || exit 99
	case $rc in
	0) ran=$((ran + 1)) ;;
	77) skip "$n" "it needs ../shared/data beside the source tree, and that is absent" ;;
	78) skip "$n" "it needs mpirun and a fedbn built with Open MPI, without the sanitizers" ;;
	79) skip "$n" "it needs the FedC2SL authors' checkout and causal-learn in ../ref, and /usr/bin/python3" ;;
	*) failed=$((failed + 1)) ;;
	esac
done
echo "examples: $ran ran, $failed failed"
[ "$failed" -eq 0 ] || exit 1
[ "$ran" -gt 0 ] || exit 77
exit 0
