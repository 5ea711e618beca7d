#!/bin/sh
# The demo without a terminal: it says it is not guided, puts one sentence before each step,
# and explains after the run why rho and the objective grew; a bad file argument is refused
# before any step.
fedbn=${FEDBN:-./fedbn}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99
"$fedbn" --no-pane demo truth=t.dot diff=d.dot < /dev/null > out.txt 2>&1 ||
	{ echo "FAIL: the demo exited non-zero"; cat out.txt; exit 1; }
fail=0
grep -q "^(not guided here: " out.txt || { echo "FAIL: no word that the demo is not guided"; fail=1; }
[ "$(grep -c '^fedbn> ' out.txt)" = 8 ] || { echo "FAIL: the demo did not run 8 steps"; fail=1; }
# the line just before each step's command is its sentence, after a blank line
awk '/^fedbn> / { if (prev == "" || pprev != "") bad = 1 } { pprev = prev; prev = $0 }
     END { exit bad }' out.txt || { echo "FAIL: a step lacks its sentence"; fail=1; }
last_round=$(grep -n '^round ' out.txt | tail -n 1 | cut -d: -f1)
why=$(grep -n '^Why rho and the objective grew: ' out.txt | cut -d: -f1)
result=$(grep -n '^fedbn> result$' out.txt | cut -d: -f1)
[ -n "$why" ] && [ -n "$last_round" ] && [ -n "$result" ] &&
	[ "$last_round" -lt "$why" ] && [ "$why" -lt "$result" ] ||
	{ echo "FAIL: no line between the run and 'result' saying why rho grows"; fail=1; }
grep -q "rho1 x1.75 and rho2 x1.25 every round" out.txt ||
	{ echo "FAIL: the explanation does not give the schedule"; fail=1; }
[ $fail = 0 ] || { cat out.txt | grep -v '^round '; exit 1; }
# a bad file argument is refused before any step: the session's data stay as they were
mkdir folder.png
"$fedbn" --no-pane -c "gen er d=3 n=5 seed=7; demo truth=x.bogus; demo diff=nowhere/d.png;
	demo truth=folder.png; demo truth=a.png diff=a.png; info" < /dev/null > bad.txt 2>&1
for want in "error: demo: truth=: cannot export 'x.bogus': unknown format '.bogus' (use .dot, .gv, .png, .svg or .pdf)" \
	"error: demo: diff=: cannot write 'nowhere/d.png': its folder 'nowhere' does not exist" \
	"error: demo: cannot write 'folder.png': it is a folder" \
	"error: demo: truth= and diff= name the same file 'a.png'; the second picture would replace the first" \
	"dataset: gen er d=3 edges=3 n=5 seed=7 noise=gauss sem=linear"; do
	grep -qxF "$want" bad.txt || { echo "FAIL: no line '$want'"; fail=1; }
done
grep -q '^fedbn> ' bad.txt && { echo "FAIL: a demo with a bad file ran a step"; fail=1; }
[ $fail = 0 ] || { cat bad.txt; exit 1; }
echo "PASS: the batch demo says it is not guided and explains each step and the growth of rho"
