#!/bin/sh
# The demo without a terminal: it says it is not guided, puts one sentence before each step,
# and explains after the run why rho and the objective grew.
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
echo "PASS: the batch demo says it is not guided and explains each step and the growth of rho"
