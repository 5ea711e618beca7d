#!/bin/sh
# session save writes a script that replays the session exactly: a gen and a split without
# seed= are saved with the seeds they drew, a step cut short by the end of a run is saved as
# the rounds it ran, files written are comments; 'fedbn -f' of the script gives the same edge
# lists (with their weights, bit for bit as printed) and the same metrics, and saving the
# replayed session gives the same script.
. "${top_srcdir:-..}/tests/scratch-lib.sh"

# results PREFIX: write every run's edges and the comparison (seconds left out)
results() {
	for r in 1 2 3 4 5; do
		echo "export run=$r $1-run$r.csv what=estimate format=matrix"
	done
	echo "compare out=$1-compare.csv"
}

cat > first.fbn <<'SCRIPT'
seed 11
gen er d=7 edges=8 n=400
split horizontal 4 sizes=uneven
algo fedpc
run
algo notears-admm
set max_rounds=6 rho1=0.01
run
seed 23
split horizontal 3
algo voting:notears
step 5
algo ges
set share=0.5
algo avg:notears
set share=1
step 2
algo notears-admm
set max_rounds=4
step 2
run
compare label=2:"admm six rounds"
result
history
session save s.fbn
SCRIPT
results a >> first.fbn
"$fedbn" --no-pane -f first.fbn > first.out 2>&1
check "the first session failed: $(tail -n 3 first.out)" [ $? = 0 ]
check "gen was not saved with the seed it drew" grep -qx 'gen er d=7 edges=8 n=400 seed=11' s.fbn
check "split was not saved with its seed" grep -qx 'split horizontal 3 seed=23' s.fbn
check "the step cut short by the run's end was not saved as the rounds it ran" \
	grep -qx 'step 1' s.fbn
check "a run that ran to the end was not saved as run" grep -qx 'run' s.fbn
check "a step that ran its rounds was not saved as it was typed" grep -qx 'step 2' s.fbn
check "history and session save were saved" sh -c '! grep -q "^history\|^session" s.fbn'

{ cat s.fbn; echo "session save s2.fbn"; results b; } > second.fbn
"$fedbn" --no-pane -f second.fbn > second.out 2>&1
check "the replay failed: $(tail -n 3 second.out)" [ $? = 0 ]
for r in 1 2 3 4 5; do
	check "run $r's edges differ in the replay" cmp -s a-run$r.csv b-run$r.csv
	check "run $r has no edges to compare" [ -s a-run$r.csv ]
done
# the comparison less its seconds column (found by its header)
sec=$(head -n 1 a-compare.csv | tr , '\n' | grep -nx seconds | cut -d: -f1)
cut -d, -f1-$((sec - 1)),$((sec + 1))- a-compare.csv > a.cmp
cut -d, -f1-$((sec - 1)),$((sec + 1))- b-compare.csv > b.cmp
check "the comparison (metrics, rounds, bytes) differs in the replay" cmp -s a.cmp b.cmp
check "the comparison has no five runs" [ "$(wc -l < a.cmp)" = 6 ]
check "the replayed session saves a different script" cmp -s s.fbn s2.fbn
if [ $fail != 0 ]; then
	cat s.fbn
	diff a.cmp b.cmp
fi
exit $fail
