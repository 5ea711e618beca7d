#!/bin/sh
# Hidden common causes: data from a random DAG whose busiest causes are then hidden (gen
# hide=K hides the K variables with the most children), learned by PC and by FCI.  PC
# assumes nothing is hidden, so two variables that share a hidden cause come out joined by
# an edge and often with a confident but wrong arrow; FCI marks such a pair X <-> Y (a
# hidden common cause) and writes a circle where the data cannot tell tail from arrowhead.
# Prints both graphs, the true PAG, and compare's PAG-SHD (mark-by-mark distance to the true
# PAG: PC's edges read as a PAG's), and draws both pictures.
#   sh examples/fci-hidden.sh [quick]      (quick: d = 10, n = 3000; else d = 12, n = 10000)
# Writes fci-hidden-pc.png, fci-hidden-fci.png and fci-hidden.md in $OUT (default:
# fedbn-figures); $FEDBN as in clients-sweep.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep-setup.sh"
gen="gen er d=12 edges=16 n=10000 seed=2 hide=3"
[ $quick = yes ] && gen="gen er d=10 edges=12 n=3000 seed=3 hide=2"
exec "$fedbn" --bail --no-pane -c "
	$gen; truth;
	algo pc; run; result; export '$out/fci-hidden-pc.png' force=yes;
	algo fci; run; result; export '$out/fci-hidden-fci.png' force=yes;
	compare; compare out='$out/fci-hidden.md' force=yes"
