#!/bin/sh
# source of a long file of comments: read at the speed of any other file (time linear in its
# lines: 16 times the lines take far less than 256 times as long, with room for a loaded
# machine), printing nothing for the comments; a single comment line of 4 MB too; the
# command after them runs.
. "${top_srcdir:-..}/tests/scratch-lib.sh"

# comments N FILE: N comment lines, then one command
comments() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
		printf "# comment %d of a long file that says nothing at all\n", i; print "echo done" }' > "$2"
}

# millis FILE: how long source FILE takes, in milliseconds; its output in out-FILE.txt
millis() {
	start=$(date +%s%N)
	"$fedbn" --no-pane -c "source $1" > "out-$1.txt" 2>&1
	end=$(date +%s%N)
	echo $(((end - start) / 1000000))
}

comments 50000 small.fbn
comments 800000 big.fbn
awk 'BEGIN { printf "#"; for (i = 0; i < 4000000; i++) printf "x"; print ""; print "echo done" }' \
	> wide.fbn
small=$(millis small.fbn)
big=$(millis big.fbn)
millis wide.fbn > /dev/null
for f in small big wide; do
	check "source $f.fbn printed more than the command's line: $(head -c 200 out-$f.fbn.txt)" \
		[ "$(cat out-$f.fbn.txt)" = done ]
done
echo "source: 50000 comment lines in $small ms, 800000 in $big ms"
check "800000 comment lines took $big ms against $small ms for 50000: not linear" \
	[ "$big" -le $((64 * small + 2000)) ]
exit $fail
