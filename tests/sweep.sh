#!/bin/sh
# sweep: one row per cell whose figures equal those of the same commands run alone; jobs=2
# gives the rows of jobs=1 (times aside); resume=yes keeps the rows it finds and runs only the
# missing cells; a failing cell is recorded with its error and the sweep goes on; Ctrl-C
# keeps the finished cells.
fedbn=${FEDBN:-./fedbn}
data=$(cd "${top_srcdir:-.}/tests/data" && pwd) || exit 99
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99

fail() {
	echo "FAIL: $*"
	exit 1
}

cat > exp.fbn <<'FBN'
# a cell: data of its seed over K clients, one algorithm
gen er d=6 edges=6 n=120 seed=${seed}
split horizontal ${K}
algo ${algo}
run
FBN
grid="K=2,3 seed=1..3 algo=notears-admm,avg:notears"
"$fedbn" -c "sweep $grid file=exp.fbn out=one.csv" > one.log 2>&1 || { cat one.log; fail "sweep failed"; }

# one row per cell, in grid order, with every column
[ "$(wc -l < one.csv)" = 13 ] || fail "one.csv has $(wc -l < one.csv) lines, expected 13"
head -n 1 one.csv | grep -qx 'K,seed,algo,shd,shd_dag,shd_cpdag,extra,missing,reversed,tpr,fdr,precision,f1,nnz,rounds,seconds,bytes_up,bytes_down,bytes,train_ll,test_ll,accuracy,class_f1,nodes,params,circuit_bytes,wall,error' ||
	fail "unexpected header: $(head -n 1 one.csv)"
sed -n 2p one.csv | grep -q '^2,1,notears-admm,' || fail "the first row is not K=2 seed=1 notears-admm"
sed -n 13p one.csv | grep -q '^3,3,avg:notears,' || fail "the last row is not K=3 seed=3 avg:notears"

# each cell's figures are those of the same commands run on their own (compare's CSV read by
# its header's names: SHD, TPR with three decimals, rounds, bytes)
tail -n +2 one.csv | while IFS=, read -r k seed algo shd _ _ _ _ _ tpr _ _ _ _ rounds _ _ _ bytes _; do
	sed -e "s/\${seed}/$seed/; s/\${K}/$k/; s/\${algo}/$algo/" exp.fbn > alone.fbn
	echo "compare out=alone.csv" >> alone.fbn
	rm -f alone.csv
	"$fedbn" -f alone.fbn > /dev/null 2>&1 || fail "the cell K=$k seed=$seed $algo fails alone"
	tail -n 1 alone.csv | awk -F, -v shd="$shd" -v tpr="$tpr" -v r="$rounds" -v b="$bytes" \
		-v cell="K=$k seed=$seed $algo" -v head="$(head -n 1 alone.csv)" '
		BEGIN { n = split(head, h, ","); for (i = 1; i <= n; i++) c[h[i]] = i }
		{
			S = $c["SHD"]; T = $c["TPR"]; R = $c["rounds"]; B = $c["bytes"]
			if (S != shd || R != r || B != b || (T - tpr) > 0.0005 || (tpr - T) > 0.0005) {
				printf "FAIL: %s: sweep shd %s tpr %s rounds %s bytes %s, alone %s %s %s %s\n",
					cell, shd, tpr, r, b, S, T, R, B
				exit 1
			}
		}' || exit 1
done || exit 1

# the summary file holds, per (K, algo), the mean and standard error over the seeds of the
# rows (computed here again from one.csv)
awk -F, 'NR > 1 { k = $1 "," $3; n[k]++; s[k] += $4; ss[k] += $4 * $4 }
	END { for (k in n) { m = s[k] / n[k]; v = (ss[k] - n[k] * m * m) / (n[k] - 1)
		printf "%s,%.9f,%.9f\n", k, m, sqrt(v > 0 ? v : 0) / sqrt(n[k]) } }' one.csv | sort > want.txt
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ printf "%s,%s,%.9f,%.9f\n", $c["K"], $c["algo"], $c["shd_mean"], $c["shd_se"] }' \
	one-summary.csv | sort > got.txt
cmp -s want.txt got.txt || { diff want.txt got.txt; fail "the summary's SHD means and standard errors are not the rows'"; }
[ "$(wc -l < got.txt)" = 4 ] || fail "the summary has $(wc -l < got.txt) groups, expected 4"
head -n 1 one-summary.md | grep -q '^| K | algo | count | shd | ' || fail "one-summary.md has no table header"

# drop the two time columns (seconds, wall: 16 and 27)
untimed() {
	cut -d, -f1-15,17-26,28 "$1"
}

# jobs=2: the same rows, times aside
"$fedbn" -c "sweep $grid file=exp.fbn out=two.csv jobs=2" > two.log 2>&1 || { cat two.log; fail "jobs=2 failed"; }
grep -q 'on 2 processes' two.log || fail "jobs=2 did not say it ran on 2 processes"
untimed one.csv > a.txt
untimed two.csv > b.txt
cmp -s a.txt b.txt || { diff a.txt b.txt; fail "jobs=2 rows differ from jobs=1"; }

# resume: a kept row is not run again (its changed shd stays), deleted rows come back equal
sed -e '/^2,1,notears-admm,/s/^\(2,1,notears-admm\),[0-9]*,/\1,999,/' -e '/^3,2,/d' one.csv > res.csv
"$fedbn" -c "sweep $grid file=exp.fbn out=res.csv resume=yes" > res.log 2>&1 || { cat res.log; fail "resume failed"; }
grep -q '^sweep: 2 of 2 cells ran .*; 10 cells were already in' res.log || { cat res.log; fail "resume did not run just the 2 missing cells"; }
grep -q '^2,1,notears-admm,999,' res.csv || fail "resume ran a cell the file already had"
sed -e '/^2,1,notears-admm,/s/^\(2,1,notears-admm\),[0-9]*,/\1,999,/' one.csv | untimed /dev/stdin > a.txt
untimed res.csv > b.txt
cmp -s a.txt b.txt || { diff a.txt b.txt; fail "resumed rows differ"; }

# a circuit's cell: its log-likelihoods, accuracy, F1 and size are those result and classify
# give the same run
cmds="load $data/bin4; split hybrid 2 seed=3; algo fedcircuit; set min_instances_slice=50; run"
"$fedbn" -c "sweep seed=1 do=\"$cmds\" out=circ.csv label=X4" > circ.log 2>&1 || { cat circ.log; fail "circuit sweep failed"; }
"$fedbn" -c "$cmds; result; classify X4" > alone.log 2>&1 || { cat alone.log; fail "circuit run failed"; }
want=$(awk '/^  train /{t=$2} /^  test /{e=$2} /^accuracy /{a=$2; f=$7} /^circuit: /{n=$2; p=$12}
	END { print t, e, a, substr(f, 1, 6), n, p }' alone.log)
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ printf "%.4f %.4f %.4f %.4f %s %s\n", $c["train_ll"], $c["test_ll"], $c["accuracy"],
	  $c["class_f1"], $c["nodes"], $c["params"] }' circ.csv)
[ "$want" = "$got" ] || { cat alone.log; fail "circuit row '$got', the run alone '$want'"; }
grep -q '^1,"","",' circ.csv || fail "a circuit's row has graph scores"

# a failing cell is recorded with its error, the others run, the exit status is 0
"$fedbn" -c 'sweep K=2,0 seed=1 do="gen er d=5 edges=5 n=60 seed=${seed}; split horizontal ${K}; algo notears-admm; set max_rounds=3; run" out=f.csv' > f.log 2>&1 ||
	{ cat f.log; fail "a failing cell stopped the sweep"; }
[ "$(wc -l < f.csv)" = 3 ] || fail "f.csv has $(wc -l < f.csv) lines"
grep -q '^0,1,"",.*,"do:1: split: the number of clients must be a whole number >= 1, not '"'0'"'"$' f.csv ||
	{ cat f.csv; fail "the failed cell's row lacks its error"; }
grep -q '^2,1,[0-9]' f.csv || fail "the good cell has no figures"
grep -q "^warning: sweep: cell K=0 seed=1 failed: do:1: split: " f.log || fail "the failure was not reported"

# a cell that hangs (reading a pipe no one writes) is stopped at cell_timeout= and recorded
# as failed; the other cells run and keep their figures
mkfifo hang.fifo
printf 'gen er d=5 edges=5 n=60 seed=1\n' > no.fbn
printf 'load hang.fifo\n' > yes.fbn
start=$(date +%s)
timeout 60 "$fedbn" -c 'sweep hang=no,yes seed=1 cell_timeout=2 jobs=2 do="source ${hang}.fbn; algo pc; run" out=h.csv' > h.log 2>&1 ||
	{ cat h.log; fail "a hung cell stopped the sweep"; }
[ $(($(date +%s) - start)) -lt 20 ] || fail "the hung cell was not stopped in time"
grep -q '^yes,1,"",.*,the cell ran past cell_timeout=2 seconds and was stopped$' h.csv ||
	{ cat h.csv; fail "the hung cell's row lacks its error"; }
grep -q '^no,1,[0-9]' h.csv || { cat h.csv; fail "the good cell has no figures"; }
grep -q "^warning: sweep: cell hang=yes seed=1 failed: the cell ran past cell_timeout=2 seconds" h.log ||
	{ cat h.log; fail "the stopped cell was not reported"; }

# Ctrl-C: the finished cells stay in the file, the sweep says it stopped, resume finishes it
"$fedbn" -c 'sweep seed=1..40 do="gen er d=20 edges=20 n=400 seed=${seed}; split horizontal 4; algo notears-admm; run" out=c.csv progress=0' > c.log 2>&1 &
pid=$!
for _ in $(seq 600); do
	[ "$(grep -c ' cells done' c.log)" -ge 2 ] && break
	sleep 0.05
done
kill -INT "$pid"
wait "$pid"
status=$?
[ $status = 1 ] || { cat c.log; fail "exit status $status after Ctrl-C, expected 1"; }
grep -q '^error: sweep: stopped by Ctrl-C after [0-9]* of 40 cells; resume=yes runs the rest' c.log ||
	{ cat c.log; fail "no 'stopped by Ctrl-C' error"; }
kept=$(($(wc -l < c.csv) - 1))
[ "$kept" -ge 2 ] && [ "$kept" -lt 40 ] || fail "after Ctrl-C c.csv holds $kept cells"
grep -q ",\"\"$" c.csv && [ "$(grep -c ',""$' c.csv)" = "$kept" ] || fail "a kept cell is marked failed"
echo "PASS: sweep rows match single runs, jobs=2 = jobs=1, resume, a failed cell, a hung cell, Ctrl-C ($kept cells kept)"
