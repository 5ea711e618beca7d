#!/bin/sh
# One estimate, one score: the pane's graph view, result, compare and the legend of an
# exported diff picture print the same counts and rates for the same run.  Two estimates:
# pc on a sample of asia (a CPDAG with an undirected edge, extra, missing and reversed
# edges, where an undirected edge must count once everywhere, precision included) and
# notears-admm at a low threshold (the pane draws weights).
fedbn=${FEDBN:-./fedbn}
. "${top_srcdir:-.}/tests/tmux-lib.sh"
top=$(cd "${top_srcdir:-.}" && pwd) || exit 99

# same WHAT A B: A and B are the same text
same() {
	[ "$2" = "$3" ] || fail "$1: '$2' against '$3'"
	[ -n "$2" ] || fail "$1: nothing found"
}

# agree NAME SETUP: run SETUP then run in the pane; compare its graph view with result,
# compare (the newest row) and the legend of a DOT export
agree() {
	name=$1
	keys "$2" Enter
	for _ in $(seq 200); do # the pane's top bar says the run has finished
		screen | head -n 1 | grep -q "run $name: .* finished" && break
		sleep 0.1
	done
	screen | head -n 1 | grep -q "run $name: .* finished" || fail "run $name did not finish"
	keys v
	wait_for "correct"
	sleep 0.3
	# "...; SHD 6, TPR 0.500, FDR 0.429, precision 0.571, F1 0.533" and the legend row
	pane_words=$(screen | sed -n 's/.*edges[^;]*; \(SHD .*\)$/\1/p' | head -n 1)
	pane_edges=$(screen | sed -n 's/.* \([0-9][0-9]*\) edges, largest.*/\1/p;
		s/.*at round [0-9]*: \([0-9][0-9]*\) (the algorithm.*/\1/p' | head -n 1)
	legend=$(screen | grep -E '^ \* correct ' | head -n 1)
	pane_counts=$(echo "$legend" | sed -n \
		's/.*correct \([0-9]*\) .*extra \([0-9]*\) .*x reversed \([0-9]*\) .*missing \([0-9]*\).*/\1 \2 \3 \4/p')
	keys q
	wait_for "fedbn>"
	keys C-l 'result' Enter
	wait_for "against the truth:"
	line=$(screen | grep '^against the truth:' | tail -n 1)
	res_words=$(echo "$line" | sed -n \
		's/^against the truth: SHD \([0-9]*\) (.*), TPR \([0-9.]*\), FDR \([0-9.]*\), precision \([0-9.]*\), recall [0-9.]*, F1 \([0-9.]*\), NNZ.*/SHD \1, TPR \2, FDR \3, precision \4, F1 \5/p')
	res_counts=$(echo "$line" | sed -n \
		's/.*extra \([0-9]*\), missing \([0-9]*\), reversed \([0-9]*\)).*/\1 \2 \3/p')
	res_tp=$(echo "$line" | sed -n 's/.*NNZ \([0-9]*\).*/\1/p')
	same "pane's words vs result" "$pane_words" "$res_words"
	same "pane's edges vs result's NNZ" "$pane_edges" "$res_tp"
	# result has no "correct"; correct = NNZ - extra - reversed
	set -- $res_counts
	res_correct=$((res_tp - $1 - $3))
	same "pane's counts vs result" "$pane_counts" "$res_correct $1 $3 $2"
	# compare: SHD, TPR, FDR, F1 and NNZ of the newest row
	keys C-l 'compare' Enter
	wait_for "SHD-CPDAG"
	row=$(screen | grep -E "^$name " | tail -n 1)
	cmp_fig=$(echo "$row" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9][0-9][0-9]$/) { n = i; break }
		print $(n - 4), $n, $(n + 1), $(n + 2), $(n + 3) }')
	res_fig=$(echo "$res_words" | sed 's/SHD \([0-9]*\), TPR \([0-9.]*\), FDR \([0-9.]*\), precision [0-9.]*, F1 \([0-9.]*\)/\1 \2 \3 \4/')
	same "compare vs result" "$cmp_fig" "$res_fig $res_tp"
	# the picture's legend
	keys C-l "export $tmp/$name.dot what=diff" Enter
	wait_for "wrote '$tmp/$name.dot'"
	dot_words=$(grep -o 'SHD [^<]*' "$tmp/$name.dot" | head -n 1)
	dot_counts=$(for k in correct extra reversed missing; do
		grep -o "$k: [0-9]*" "$tmp/$name.dot" | head -n 1 | sed 's/.*: //'; done | tr '\n' ' ' |
		sed 's/ $//')
	same "legend's words vs result" "$dot_words" "$res_words"
	same "legend's counts vs pane" "$dot_counts" "$pane_counts"
	keys C-l
}

cd "$tmp" || exit 99
tmux -L "$sock" -f /dev/null new-session -d -s t -x 220 -y 50 \
	"env FEDBN_HISTORY=$tmp/history LANG=C TERM=xterm $fedbn; sleep 60"
wait_for "fedbn>"
agree 1 "sample $top/tests/data/bif-asia.bif n=500 seed=2; algo pc; run"
# the CPDAG case must hold an undirected edge and every kind of error, or it tests little
screen >/dev/null
keys 'result' Enter
wait_for "smoke -- bronc"
agree 2 "gen er d=8 n=200 seed=3; split horizontal 4; algo notears-admm; set threshold=0.1; run"
echo "PASS: the pane, result, compare and the diff picture agree"
