#!/bin/sh
# report: a session of three runs as one HTML page and as Markdown.  The HTML page embeds one
# SVG picture per run (data URIs that decode to the run's diff against the truth), refers to
# no other file, escapes what it quotes, passes an HTML validator (xmllint --html, from
# libxml2-utils; the test is skipped after its other checks when it is absent), and states
# each run's accuracy exactly as result does; the Markdown page writes its pictures beside
# it and links them; a sweep's summary and a plot have their own section; bad requests are
# one sentence and write nothing.
. "${top_srcdir:-..}/tests/scratch-lib.sh"

cat > s.fbn <<'SCRIPT'
gen er d=7 edges=8 n=500 seed=3
split horizontal 4
algo fedpc
run
algo notears-admm
set max_rounds=30
run
algo voting:notears
run
compare label=1:"fed<pc>&co"
result run=1
result run=2
result run=3
report out=s.html
report out=s.md
SCRIPT
"$fedbn" --no-pane -f s.fbn > out.txt 2>&1
check "the session failed: $(tail -n 3 out.txt)" [ $? = 0 ]
check "report did not say what it wrote" \
	grep -qx "wrote 's.html' (3 runs, 3 pictures embedded)" out.txt

# the HTML page: three runs, three embedded pictures, nothing outside it
check "the page does not have three run headings" [ "$(grep -c '^<h3>Run [123]: ' s.html)" = 3 ]
check "the page does not embed three pictures" \
	[ "$(grep -o 'src="data:image/svg+xml;base64,[A-Za-z0-9+/=]*"' s.html | wc -l)" = 3 ]
check "the page refers to another file" sh -c '! grep -qE "(src|href)=\"[^d]" s.html'
grep -o 'src="data:image/svg+xml;base64,[A-Za-z0-9+/=]*"' s.html | sed -n 2p |
	sed 's/^src="data:image\/svg+xml;base64,//; s/"$//' | base64 -d > run2.svg 2>/dev/null
check "run 2's embedded picture is not its diff as SVG" grep -q '<svg' run2.svg
check "run 2's embedded picture does not name its variables" grep -q '>X7<' run2.svg
check "run 2's embedded picture has no legend of the diff" grep -qi 'missing' run2.svg
check "the label was not escaped" grep -q 'fed&lt;pc&gt;&amp;co' s.html
check "the label appears unescaped" sh -c '! grep -q "fed<pc>" s.html'
check "the comparison table does not have three rows" \
	[ "$(grep -cE '^<tr><td>[123]</td><td>[^<]*</td><td>(fedpc|notears-admm|voting:notears)</td>' s.html)" = 3 ]
check "the split's clients are not listed" [ "$(grep -c '^<tr><td>[1-4]</td><td>125</td>' s.html)" = 4 ]
# each run's accuracy on the page is the one result prints
for r in 1 2 3; do
	want=$(grep '^against the truth: ' out.txt | sed -n "${r}p" | sed 's/^against the truth: //')
	check "run $r's accuracy differs from result's ('$want')" \
		grep -qF "<li><b>accuracy</b>: $want</li>" s.html
done
check "the page lacks the commands that replay it" grep -qx 'split horizontal 4 seed=1' s.html

# the Markdown page and its pictures
for r in 1 2 3; do
	check "s-run$r.svg was not written beside the page" grep -q '<svg' s-run$r.svg
	check "the page does not link s-run$r.svg" grep -qF "](s-run$r.svg)" s.md
done
check "the Markdown comparison has no header rule" grep -q '^|---|---|' s.md

# bad requests: one sentence each, nothing written
"$fedbn" --no-pane -c 'report out=s.txt; report; echo x > theirs.html; gen er; report out=theirs.html' \
	> bad.txt 2>&1
check "a .txt page was not refused" \
	grep -qx "error: report: cannot tell the format of 's.txt' (use .md or .html)" bad.txt
check "a missing out= was not refused" grep -q "^error: report: give the page to write" bad.txt
check "s.txt was written" [ ! -e s.txt ]
echo x > theirs.html
"$fedbn" --no-pane -c 'gen er; report out=theirs.html' > bad.txt 2>&1
check "a file fedbn did not write was replaced" grep -qx x theirs.html

# a sweep's summary and a plot of it get their own section (the plot needs gnuplot)
plot=
command -v gnuplot >/dev/null 2>&1 && plot="plot k.csv x=K y=shd out=k.svg;"
"$fedbn" --no-pane -c "sweep K=2,4 seed=1..2 do=\"gen er d=5 n=200 seed=\${seed};
	split horizontal \${K}; algo fedpc; run\" out=k.csv; $plot report out=k.html" > k.txt 2>&1
check "the sweep session failed: $(tail -n 3 k.txt)" [ $? = 0 ]
check "the page has no section for the sweep" grep -q '^<h3>Sweep into k.csv</h3>' k.html
check "the sweep's summary is not a table of its two groups and header" \
	[ "$(grep -cE '^<tr><t[hd]>(K|2|4)</t[hd]><t[hd]>(count|2)</t[hd]>' k.html)" = 3 ]
if [ -n "$plot" ]; then
	check "the plot is not embedded" grep -q '^<h3>Plot k.svg</h3>' k.html
	check "the plot's picture is not the plot" \
		[ "$(grep -o 'src="data:image/svg+xml;base64,[A-Za-z0-9+/=]*"' k.html | wc -l)" = 1 ]
fi

# files are named by their base names on the page, in its pictures' captions and in its
# commands, so that a shared page shows no folder of this machine; paths=full names them as
# typed (export's captions follow the same paths=)
here=$(pwd)
"$fedbn" --no-pane -c "gen er d=5 n=200 seed=1; save $here/sub.csv; export $here/t.csv what=truth;
	load $here/sub.csv; truth load $here/t.csv; split horizontal 2; algo fedpc; run;
	export cap.dot what=diff; export capfull.dot what=diff paths=full;
	report out=b.html; report out=b.md; report out=f.md paths=full" > p.txt 2>&1
check "the session with absolute paths failed: $(tail -n 3 p.txt)" [ $? = 0 ]
grep -o 'src="data:image/svg+xml;base64,[A-Za-z0-9+/=]*"' b.html |
	sed 's/^src="data:image\/svg+xml;base64,//; s/"$//' | base64 -d > b-embedded.svg 2>/dev/null
check "the picture embedded in b.html is missing" grep -q '<svg' b-embedded.svg
for f in b.html b-embedded.svg b.md b-run1.svg cap.dot; do
	check "$f names the folder the data came from" sh -c "! grep -qF '$here/' $f"
done
check "the page does not name the data by its base name" grep -qF '**dataset**: sub.csv' b.md
check "the page does not name the truth by its base name" grep -qF '5 edges (t.csv)' b.md
check "the page's commands do not load the data by its base name" grep -qx 'load sub.csv' b.md
check "the caption does not name the data by its base name" grep -q 'data: sub.csv; split' cap.dot
check "paths=full does not name the data as typed" grep -qF "**dataset**: $here/sub.csv" f.md
check "paths=full does not load the data as typed" grep -qxF "load $here/sub.csv" f.md
check "paths=full does not reach the picture" grep -qF "data: $here/sub.csv; split" f-run1.svg
check "export paths=full does not caption the path as typed" \
	grep -qF "data: $here/sub.csv; split" capfull.dot

# a circuit run's picture is its circuit, embedded as the graphs' are
"$fedbn" --no-pane -c 'gen er d=4 edges=3 n=300 seed=2; algo circuit; run;
	report out=c.html' > c.txt 2>&1
check "the circuit session failed: $(tail -n 3 c.txt)" [ $? = 0 ]
check "report did not count the circuit's picture" \
	grep -qx "wrote 'c.html' (1 run, 1 picture embedded)" c.txt
grep -o 'src="data:image/svg+xml;base64,[A-Za-z0-9+/=]*"' c.html | sed -n 1p |
	sed 's/^src="data:image\/svg+xml;base64,//; s/"$//' | base64 -d > c.svg 2>/dev/null
check "the circuit's embedded picture is not its circuit" grep -q 'a circuit of' c.svg
check "the page does not say the picture is the circuit" grep -q 'the circuit' c.html

if command -v xmllint >/dev/null 2>&1; then
	xmllint --html --noout s.html k.html c.html > lint.txt 2>&1
	status=$?
	check "xmllint --html finds fault with the page: $(head -n 5 lint.txt)" \
		[ $status = 0 ] && [ ! -s lint.txt ]
elif [ $fail = 0 ]; then
	echo "SKIP: xmllint (Debian package libxml2-utils) is absent: the page was not validated"
	exit 77
fi
exit $fail
