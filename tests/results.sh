#!/bin/sh
# The learners' results on the shared files, edge for edge: pc (chi2, g2, fisher-z) and fedpc
# (one thread and two) must give exactly the edge lists kept in tests/data/results, which
# were written before any speed-up; a faster version that changes one edge fails here.
# FB_REGEN=1 rewrites the kept lists from the current program instead of comparing.
top=${top_srcdir:-.}
fedbn=${FEDBN:-./fedbn}
topabs=$(cd "$top" && pwd)
want="$topabs/tests/data/results"
shared="$topabs/../shared/data"

if [ ! -d "$shared" ]; then
	echo "SKIP: results.sh needs ../shared/data beside the source tree, and it is absent"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/fedbn-results.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 99
ln -s "$shared" shared
cat > script.fbn <<'END'
algo pc
set test=chi2 alpha=0.05
load shared/discrete10000/asia.csv discrete=all
run
export pc-chi2-asia.csv
load shared/discrete10000/sachs.csv discrete=all
run
export pc-chi2-sachs.csv
load shared/discrete10000/alarm.csv discrete=all
run
export pc-chi2-alarm.csv
set test=g2
run
export pc-g2-alarm.csv
set test=auto alpha=0.01
load shared/synth/A_d100_n300_s1/X.csv
run
export pc-fisher-A_d100.csv
split horizontal 10 shuffle=no
algo fedpc
run
export fedpc-A_d100.csv
set threads=2
run
export fedpc-A_d100-threads2.csv
gen er d=300 edges=300 n=3000 seed=5
split horizontal 10 shuffle=no
set threads=1
run
export fedpc-er300.csv
set threads=2
run
export fedpc-er300-threads2.csv
algo pc
run
export pc-er300.csv
END
if ! "$fedbn" --no-pane --bail -f script.fbn > log.txt 2>&1; then
	cat log.txt
	echo "FAIL: the script did not run to its end"
	exit 1
fi
status=0
for f in *.csv; do
	if [ -n "$FB_REGEN" ]; then
		cp "$f" "$want/$f"
	elif ! cmp -s "$f" "$want/$f"; then
		echo "FAIL: $f differs from the kept result:"
		diff "$want/$f" "$f" | head -n 20
		status=1
	fi
done
[ $status = 0 ] && echo "PASS: $(ls *.csv | wc -l) edge lists as kept"
exit $status
