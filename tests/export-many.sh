#!/bin/sh
# One session that draws many pictures, each laid out afresh: 60 datasets, each learned by
# fedpc and drawn three times as SVG (truth, estimate against truth, estimate), some 520 runs
# of dot's component search in one process.  Graphviz 2.42 keeps a one-byte mark from layout
# to layout there, and before pictures shared one layout per dataset, the picture that fell
# on its wrap (the 111th of this sequence) crashed the program; every picture must be written.
fedbn=${FEDBN:-./fedbn}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99
for s in $(seq 1 60); do
	# some of these ask for more edges than d variables allow: gen refuses, the data stays
	printf 'gen er d=%d edges=%d n=200 seed=%d\nsplit horizontal 2\nalgo fedpc\nrun\n' \
		$((s % 9 + 3)) $((s % 11)) "$s"
	for w in truth diff estimate; do
		printf 'export %s.svg what=%s layout=fresh\n' "$w" "$w"
	done
done > many.fbn
"$fedbn" --no-pane -f many.fbn < /dev/null > out.txt 2>&1
status=$?
wrote=$(grep -c "^wrote '[a-z]*.svg'" out.txt)
if [ $status -gt 1 ] || [ "$wrote" != 180 ]; then
	echo "FAIL: fedbn exited $status after writing $wrote of 180 pictures; its last lines:"
	tail -n 5 out.txt
	exit 1
fi
echo "PASS: one session drew 180 pictures, each laid out afresh"
