#!/bin/sh
# Circuit pictures: a title naming the run and its size, the run's caption, a legend of the
# shapes and of the machines' colours; leaves that read as distributions ("lung: p(yes) =
# 0.0x" for a two-valued variable, "X1: N(..., sd ...)" for a Gaussian, a histogram's bins
# and support), a product's leaves stacked into one box of rows; a PNG at most 1584 pixels
# wide (16.5 inches at 96 dpi) by default, width= as asked, and a circuit too wide for that
# scaled down with a sentence saying so (an SVG by its width and height, its viewBox kept);
# a level wider than the page staggered over several rows (edges of minlen 2 and more), one
# that fits left as it is.
data=$(cd "${top_srcdir:-..}/tests/data" && pwd)
. "${top_srcdir:-..}/tests/scratch-lib.sh"

"$fedbn" --no-pane -c "sample $data/bif-asia.bif n=2000 seed=1;
	algo circuit; run; export a.dot; export a.png; export w.png width=20; export d.dot depth=1;
	export t.dot title=Mine caption=no;
	gen er d=3 edges=2 n=300 seed=4; algo circuit; set leaves=parametric min_instances_slice=50;
	run; export g.dot;
	gen er d=3 edges=2 n=300 seed=4; set leaves=histogram; run; export h.dot;
	gen er d=40 edges=40 n=3000 seed=2; split horizontal 6; algo fedcircuit;
	set min_instances_slice=100; run; export wide.png; export wide.svg; export wide.dot" \
	> out.txt 2>&1
check "the session failed: $(tail -n 3 out.txt)" [ $? = 0 ]
check "no title with the run and its size" grep -q '<b>run 1: circuit, a circuit of [0-9]* nodes</b>' a.dot
check "no caption with the data" grep -q 'data: sample bif-asia.bif n=2000 seed=1; split: all rows' a.dot
check "no legend of the shapes" grep -q 'a sum: its edges' a.dot
check "no stack in the legend" grep -q "a product's leaves, one a row" a.dot
check "the server's colour is not in the legend" grep -q 'held by the server' a.dot
check "a two-valued leaf does not read p(yes)" grep -Eq 'lung: p\(yes\) = 0\.[0-9]+' a.dot
check "a one-valued leaf does not read '= value'" grep -Eq '[a-z]+ = (yes|no)<' a.dot
check "a leaf reads 'histogram'" test -z "$(grep -i 'histogram [0-9]' a.dot)"
check "no folder at depth 1" grep -q 'shape=folder' d.dot
check "the folder is not in the legend" grep -q 'a part folded by depth=' d.dot
check "title= is not the title" grep -q '<b>Mine</b>' t.dot
check "caption=no kept the caption" test -z "$(grep 'split: all rows' t.dot)"
check "a Gaussian leaf does not read N(mean, sd)" grep -Eq 'X[0-9]: N\(-?[0-9.e-]+, sd [0-9.e-]+\)' g.dot
check "a continuous histogram does not give its bins and support" \
	grep -Eq 'X[0-9]: [0-9]+ bins on \[-?[0-9.e-]+, -?[0-9.e-]+\]' h.dot
width() { file "$1" | sed -n 's/.*PNG image data, \([0-9]*\) x .*/\1/p'; }
check "a.png is $(width a.png) pixels wide, over 1584" [ "$(width a.png)" -le 1584 ]
check "w.png is $(width w.png) pixels wide, not 1920 (width=20)" [ "$(width w.png)" = 1920 ]
check "wide.png is $(width wide.png) pixels wide, not 1584" [ "$(width wide.png)" = 1584 ]
check "no sentence on the scaled-down picture" \
	grep -Eq "^wrote 'wide.png' \(a circuit of [0-9]+ nodes, [0-9]+ inches wide, scaled down to 16.5: depth= folds it to fewer nodes\)$" out.txt
check "wide.svg is not 16.5 inches (1188 points) wide with its viewBox kept" \
	grep -Eq '^<svg width="1188.00pt" height="[0-9.]+pt"$' wide.svg
check "wide.svg has no viewBox" grep -q ' viewBox="0.00 0.00 [0-9.]* [0-9.]*"' wide.svg
check "wide.dot's wide levels are not folded onto rows" grep -Eq 'minlen=[234]' wide.dot
check "a.dot, narrower than the page, is folded" test -z "$(grep minlen a.dot)"
exit $fail
