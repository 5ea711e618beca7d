#!/bin/sh
# plot: an SVG and a PNG from a table carry the axis labels, the legend and the title; the
# means and error bars are those of the rows; a run's trace draws its figures; without
# gnuplot the command names the Debian package to install; bad columns are named; names with
# quotes, backslashes and line ends reach gnuplot intact; a full disk keeps the old picture.
fedbn=${FEDBN:-./fedbn}
command -v gnuplot > /dev/null 2>&1 || {
	echo "SKIP: gnuplot is not installed (Debian package gnuplot-nox): plot cannot draw"
	exit 77
}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99

fail() {
	echo "FAIL: $*"
	exit 1
}

# two methods over K = 2, 8, two seeds each; method b at K=8 has a failed cell (no shd)
cat > t.csv <<'CSV'
K,seed,method,shd,error
2,1,alpha,4,""
2,2,alpha,6,""
8,1,alpha,10,""
8,2,alpha,14,""
2,1,beta_x,1,""
2,2,beta_x,3,""
8,1,beta_x,7,""
8,2,beta_x,,"do:1: failed"
CSV
"$fedbn" -c 'plot t.csv x=K y=shd by=method out=t.svg' > out.txt 2>&1 || { cat out.txt; fail "plot failed"; }
grep -qx "wrote 't.svg' (2 lines, 4 points)" out.txt || { cat out.txt; fail "unexpected message"; }
[ -s t.svg ] || fail "t.svg is empty"
texts=$(grep -o '<text[^>]*>[^<]*</text>' t.svg | sed 's/<[^>]*>//g')
for want in K shd alpha beta_x 'shd against K by method (mean ± standard error)'; do
	printf '%s\n' "$texts" | grep -qxF "$want" || fail "t.svg has no text '$want' (it has: $texts)"
done
# the points drawn are the groups' means and standard errors: alpha (2, 5 ± 1), (8, 12 ± 2);
# beta_x (2, 2 ± 1), (8, 7) from its one good row; err=sd: s.e. times sqrt(2)
"$fedbn" -c 'plot t.csv x=K y=shd by=method script=t.gp out=t.svg force=yes' > gp.txt 2>&1 ||
	{ cat gp.txt; fail "script= failed"; }
[ "$(sed -n '/^\$s0 << EOD$/,/^EOD$/p' t.gp | tr '\n' '|')" = '$s0 << EOD|2 5 1|8 12 2|EOD|' ] ||
	{ cat t.gp; fail "alpha's points are not its means and standard errors"; }
[ "$(sed -n '/^\$s1 << EOD$/,/^EOD$/p' t.gp | tr '\n' '|')" = '$s1 << EOD|2 2 1|8 7 0|EOD|' ] ||
	{ cat t.gp; fail "beta_x's points are not its means and standard errors"; }
"$fedbn" -c 'plot t.csv x=K y=shd by=method err=sd script=sd.gp out=t.png' > png.txt 2>&1 || { cat png.txt; fail "png failed"; }
grep -qx '2 5 1.4142135623730951' sd.gp || { cat sd.gp; fail "err=sd is not the standard deviation"; }
[ "$(head -c 4 t.png | od -An -c | tr -d ' ')" = '211PNG' ] || fail "t.png is not a PNG"
"$fedbn" -c 'plot t.csv x=K y=shd by=method title="my title"' > text.txt 2>&1 || fail "text plot failed"
grep -q 'my title' text.txt || fail "the text plot has no title"
grep -q 'beta_x' text.txt || fail "the text plot has no legend"

# a trace: every figure named is in the legend
"$fedbn" -c 'gen er d=5 edges=5 n=100 seed=3; split horizontal 2; algo notears-admm;
	set max_rounds=20; run; plot trace y=h,objective out=trace.svg' > trace.txt 2>&1 ||
	{ cat trace.txt; fail "plot trace failed"; }
texts=$(grep -o '<text[^>]*>[^<]*</text>' trace.svg | sed 's/<[^>]*>//g')
for want in round h objective 'run 1: notears-admm on horizontal 2 sizes=even shuffle=yes seed=1'; do
	printf '%s\n' "$texts" | grep -qxF "$want" || fail "trace.svg has no text '$want'"
done

# errors name the fault, and leave no file behind
"$fedbn" -c 'plot t.csv x=K y=foo out=bad.svg' > bad.txt 2>&1 && fail "a missing column was accepted"
grep -qx "error: plot: 't.csv' has no column 'foo' (it has K, seed, method, shd, error)" bad.txt ||
	{ cat bad.txt; fail "unexpected message for a missing column"; }
"$fedbn" -c 'plot t.csv x=method y=shd out=bad.svg' > bad.txt 2>&1 && fail "a text x was accepted"
grep -qx "error: plot: x: 'alpha' in column 'method' is not a number" bad.txt || { cat bad.txt; fail "text x"; }
"$fedbn" -c 'plot t.csv x=seed y=shd logx=yes where=seed=1 out=bad.pdf' > bad.txt 2>&1 && fail "a .pdf was accepted"
grep -q "cannot tell the format of 'bad.pdf' (use .png or .svg)" bad.txt || fail "bad extension"
[ ! -e bad.svg ] && [ ! -e bad.pdf ] || fail "a failed plot left a file"

# without gnuplot on the PATH: one sentence naming the package
PATH=/nonexistent "$fedbn" -c 'plot t.csv x=K y=shd out=none.svg' > none.txt 2>&1 && fail "plot without gnuplot succeeded"
grep -qx "error: plot: gnuplot was not found on the PATH: install the Debian package gnuplot-nox (apt-get install gnuplot-nox)" none.txt ||
	{ cat none.txt; fail "unexpected message without gnuplot"; }
[ ! -e none.svg ] || fail "a file was left without gnuplot"
# names gnuplot must get as they are: quotes, backslashes, its enhanced-text characters, a
# backquote (a shell command to gnuplot inside double quotes) and a line end
cat > q.csv <<'CSV'
K,'shd,by
1,2,'a
2,3,'a
1,1,"b\"""
2,2,"b\"""
1,5,^_@{x}
2,6,^_@{x}
CSV
"$fedbn" -c "plot q.csv x=K y=\"'shd\" by=by title=\"'it\\\"s\\\\ \\x60touch hacked\\x60\" out=q.svg" > q.txt 2>&1 ||
	{ cat q.txt; fail "quoted names failed"; }
texts=$(grep -o '<text[^>]*>[^<]*</text>' q.svg | sed 's/<[^>]*>//g;s/&quot;/"/g;s/&apos;/'"'"'/g')
for want in "'shd" "'a" 'b\"' '^_@{x}' "'it\"s\\ \`touch hacked\`"; do
	printf '%s\n' "$texts" | grep -qxF -- "$want" || fail "q.svg has no text '$want' (it has: $texts)"
done
[ ! -e hacked ] || fail "a backquote in a title ran a command"
"$fedbn" -c 'plot t.csv x=K y=shd title="first\x0Asecond"' > nl.txt 2>&1 || { cat nl.txt; fail "a title with a line end failed"; }
grep -q '^ *first *$' nl.txt && grep -q '^ *second *$' nl.txt || { cat nl.txt; fail "a line end in a title is not two lines"; }
# a file name with a line end is refused, and nothing is written anywhere
"$fedbn" -c 'plot t.csv x=K y=shd out="a\x0Ab.svg"' > nl.txt 2>&1 && fail "a file name with a line end was accepted"
grep -qx "error: plot: the plot's file name holds a control character (byte 0x0A at position 2): choose a name without line ends or tabs" nl.txt ||
	{ cat nl.txt; fail "unexpected message for a line end in a file name"; }
[ -z "$(ls | grep -v -e '^[a-z]*\.\(csv\|svg\|png\|txt\|gp\)$')" ] || { ls; fail "a file name with a line end wrote a file"; }

# a full disk (a 64 kB tmpfs, where mount is allowed): the old picture stays, one sentence
mkdir full
if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
	trap 'umount "$tmp/full"; rm -rf "$tmp"' EXIT
	echo old > full/p.png
	echo old > full/p.svg
	dd if=/dev/zero of=full/fill bs=1k count=64 2>/dev/null
	for f in p.png p.svg; do
		"$fedbn" -c "plot t.csv x=K y=shd by=method out=full/$f force=yes" > full.txt 2>&1 &&
			{ cat full.txt; fail "a plot onto a full disk succeeded"; }
		grep -qx "error: plot: gnuplot did not write all of 'full/$f' (is the disk full?); the file is left as it was" full.txt ||
			{ cat full.txt; fail "unexpected message for a full disk"; }
		[ "$(cat full/$f)" = old ] || fail "a failed plot replaced $f"
	done
	[ -z "$(ls full | grep fedbn-tmp)" ] || fail "a failed plot left a temporary file"
else
	echo "note: mount not permitted: the full-disk case is not tried"
fi
# a device or a pipe is written in place: gnuplot draws into a temporary file first, so that
# /dev/full fails in one sentence and a pipe gets the whole picture
ln -s /dev/full devfull.png
"$fedbn" -c 'plot t.csv x=K y=shd out=devfull.png force=yes' > df.txt 2>&1 && { cat df.txt; fail "a plot onto /dev/full succeeded"; }
grep -q "^error: plot: cannot write 'devfull.png': " df.txt || { cat df.txt; fail "unexpected message for /dev/full"; }
mkfifo pipe.svg
cat pipe.svg > piped.svg &
"$fedbn" -c 'plot t.csv x=K y=shd out=pipe.svg force=yes' > pipe.txt 2>&1 || { cat pipe.txt; fail "a plot into a pipe failed"; }
wait
tail -c 20 piped.svg | grep -q '</svg>' || fail "the pipe did not get the whole picture"
echo "PASS: plot draws SVG, PNG and text with labels, legend and title; errors are named"
