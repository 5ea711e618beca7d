#!/bin/sh
# Pictures of one dataset share one layout: the truth, two runs' estimates and a diff put
# every variable at the same position; a new dataset gets a new layout; layout=fresh lays
# one picture out alone.  Titles and captions carry the run's facts; title= and caption=no change them.
fedbn=${FEDBN:-./fedbn}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99
fail=0

# positions FILE.dot: one "name pos" line per pinned node, sorted
positions() {
	tr -d '\n\t' < "$1" | grep -o '[A-Za-z0-9_]*\[label=[A-Za-z0-9_]*,pos="[^"]*"' |
		sed 's/\[label=[^,]*,pos=/ /' | sort
}

# differ A B: the files differ
differ() {
	! cmp -s "$1" "$2"
}

# check WHAT COMMAND...: run the check, complain naming WHAT when it fails
check() {
	what=$1
	shift
	"$@" || { echo "FAIL: $what"; fail=1; }
}

"$fedbn" --no-pane -c "gen er d=20 edges=22 n=300 seed=4; split horizontal 2;
	algo notears-admm; run rounds=3; algo notears; set lambda=0.05; run;
	export truth.dot what=truth; export e1.dot run=1; export e2.dot run=2;
	export d2.dot what=diff; export c.dot what=compare runs=1,2;
	export fresh.dot layout=fresh; export plain.dot title=Mine caption=no;
	gen er d=20 edges=22 n=300 seed=5; export truth5.dot what=truth" > out.txt 2>&1 ||
	{ echo "FAIL: fedbn failed"; cat out.txt; exit 1; }

positions truth.dot > truth.pos
check "the truth pins 20 nodes" test "$(wc -l < truth.pos)" = 20
for f in e1 e2 d2 plain; do
	positions $f.dot > $f.pos
	check "$f.dot puts the variables where the truth does" cmp -s truth.pos $f.pos
done
positions c.dot | grep -v '_1 ' > c.pos
check "the compare picture's left panel is the truth's layout" cmp -s truth.pos c.pos
positions truth5.dot > truth5.pos
check "a new dataset is laid out anew" test "$(wc -l < truth5.pos)" = 20
check "a new dataset is laid out anew" differ truth.pos truth5.pos
positions fresh.dot > fresh.pos
check "layout=fresh lays the estimate out alone" test "$(wc -l < fresh.pos)" = 20
check "layout=fresh lays the estimate out alone" differ truth.pos fresh.pos

# without a truth the layout comes from the estimates; an export that fails leaves none behind
"$fedbn" --no-pane -c "gen er d=12 edges=14 n=200 seed=8; save d.csv;
	gen er d=12 edges=20 n=10 seed=9; export other.csv what=truth" > out2.txt 2>&1 &&
{ "$fedbn" --no-pane -c "load d.csv; algo notears; run; export bad.jpg graph=other.csv;
	export after-failure.dot" >> out2.txt 2>&1; test -f after-failure.dot; } &&
"$fedbn" --no-pane -c "load d.csv; algo notears; run; export alone.dot;
	export other.dot graph=other.csv" >> out2.txt 2>&1 ||
	{ echo "FAIL: fedbn failed"; cat out2.txt; exit 1; }
positions after-failure.dot > after-failure.pos
positions alone.dot > alone.pos
positions other.dot > other.pos
check "without a truth, the estimate's layout is pinned" test "$(wc -l < alone.pos)" = 12
check "a failed export leaves the session's layout as it was" cmp -s alone.pos after-failure.pos
check "a graph drawn later keeps the first layout" cmp -s alone.pos other.pos

check "the title names the run" grep -q '<b>run 2: notears</b>' e2.dot
check "the caption gives the parameters and round" \
	grep -q 'notears with lambda=0.05, round [0-9]* (finished)' e2.dot
check "the caption gives the data and the run's split" \
	grep -q 'data: gen er d=20 edges=22 n=300 seed=4 [^<]*; split: all rows<' e2.dot
check "the caption gives a federated run's split and unfinished round" \
	grep -q 'notears-admm with default parameters, round 3<' e1.dot
check "the caption gives a federated run's split and unfinished round" \
	grep -q 'seed=4 [^<]*; split: horizontal 2 sizes=even shuffle=yes seed=1<' e1.dot
check "the diff's title says so" grep -q '<b>run 2: notears against the truth</b>' d2.dot
check "the truth's caption gives its source" \
	grep -q 'data and truth: gen er d=20 edges=22 n=300 seed=4' truth.dot
check "compare titles both panels" grep -q '<b>run 1: notears-admm</b>' c.dot
check "compare titles both panels" grep -q '<b>run 2: notears</b>' c.dot
check "title= replaces the title" grep -q '<b>Mine</b>' plain.dot
check "caption=no drops the caption" test -z "$(grep 'round [0-9]' plain.dot)"
exit $fail
