#!/bin/sh
# plot's axes, markers and sizes: a 197-round trace is drawn as lines without markers on axes
# clipped to its rounds, SHD's axis does not go below 0; logy=yes draws on a log scale and says which
# rounds it leaves out; the error bars of two lines at the same x are set apart; a short
# series keeps its markers; size= and font= set the picture's pixels and its font, and a bad
# size is refused in one sentence.
command -v gnuplot > /dev/null 2>&1 || {
	echo "SKIP: gnuplot is not installed (Debian package gnuplot-nox): plot cannot draw"
	exit 77
}
. "${top_srcdir:-..}/tests/scratch-lib.sh"

fail() {
	echo "FAIL: $*"
	exit 1
}

run='gen er d=10 edges=12 n=300 seed=1; split horizontal 10; algo notears-admm; run'
"$fedbn" --no-pane -c "$run" -c "plot trace y=shd out=s.svg script=s.gp" \
	-c "plot trace y=shd,h,objective logy=yes out=l.png script=l.gp size=1600x1000 font=20" \
	> out.txt 2>&1 || { cat out.txt; fail "the trace plots failed"; }
grep -q "^plot \$s0 using 1:2 with lines " s.gp || fail "197 rounds are not drawn as a plain line"
grep -q "^set autoscale xfix$" s.gp || fail "the x axis is not clipped to the rounds"
lo=$(sed -n 's/^set yrange \[\([^:]*\):.*/\1/p' s.gp)
awk -v lo="$lo" 'BEGIN { exit !(lo != "" && lo >= 0 && lo < 1) }' ||
	fail "SHD's axis (from 1 to 13) begins at '$lo', not between 0 and 1"
grep -q "^set logscale y 10$" l.gp || fail "logy=yes draws no log scale"
grep -q "^logy=yes: 1 round where h is not above 0 left out$" out.txt ||
	fail "logy=yes does not say which rounds it left out"
grep -q "^set terminal pngcairo size 1600,1000 noenhanced font 'sans,20'$" l.gp ||
	fail "size= and font= do not reach the terminal"
[ "$(od -An -tu1 -j16 -N8 l.png | tr -s ' ')" = " 0 0 6 64 0 0 3 232" ] ||
	fail "the PNG is not 1600 x 1000 pixels"

# two lines with error bars at K = 2 and 8: their points are set apart, markers kept
cat > t.csv <<'CSV'
K,seed,method,shd
2,1,alpha,4
2,2,alpha,6
8,1,alpha,10
8,2,alpha,14
2,1,beta,1
2,2,beta,3
8,1,beta,7
8,2,beta,9
CSV
"$fedbn" --no-pane -c "plot t.csv x=K y=shd by=method out=t.svg script=t.gp" > out2.txt 2>&1 ||
	{ cat out2.txt; fail "the table plot failed"; }
grep -qF 'plot $s0 using ($1-0.15):2:3 with yerrorlines lw 2 pt 1 title "alpha", $s1 using ($1+0.15):2:3 with yerrorlines ' t.gp ||
	{ cat t.gp; fail "the two lines' points at the same K are not set apart"; }
grep -q "with yerrorlines " t.gp || fail "a short line lost its markers"
"$fedbn" --no-pane -c "plot t.csv x=K y=shd out=u.svg size=big" > out3.txt 2>&1 &&
	fail "size=big was taken"
grep -q "size=big: give the picture's width and height in pixels" out3.txt ||
	{ cat out3.txt; fail "a bad size is not named"; }
[ -e u.svg ] && fail "a refused plot wrote its file"
echo "PASS: axes clipped to the data, log y, markers on short lines, bars apart, size and font"
