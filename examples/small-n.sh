#!/bin/sh
# The NOTEARS-ADMM paper's Figure 1: ER graphs with d edges, linear Gaussian, n = 3d rows over
# K = 10 clients (d = 10, 20, 50), several seeds; notears-admm against voting and averaging.
# One sweep per d (n follows d), gathered in one file through resume=yes, then two plots:
# SHD and TPR against d.  In the paper notears-admm has the lowest SHD of the three.
#   sh examples/small-n.sh [quick] [SEEDS]      (SEEDS = 10; quick: d = 5, 10 and 1 seed)
# Writes small-n.csv, small-n-summary.{csv,md}, small-n-shd.png and small-n-tpr.png in $OUT
# (default: fedbn-figures); $JOBS and $FEDBN as in clients-sweep.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep-setup.sh"
seeds=${1:-10}
ds="10 20 50"
[ $quick = yes ] && seeds=${1:-1} ds="5 10"
rm -f "$out/small-n.csv"
for d in $ds; do
	"$fedbn" --bail --no-pane -c "sweep d=$d n=$((3 * d)) K=10 seed=1..$seeds
		algo=notears-admm,voting:notears,avg:notears file='$here/notears-admm-cell.fbn'
		out='$out/small-n.csv' resume=yes jobs=$jobs show=shd,tpr,fdr" || exit 1
done
exec "$fedbn" --bail --no-pane -c "
	plot '$out/small-n.csv' x=d y=shd by=algo out='$out/small-n-shd.png' force=yes
	title='SHD against the number of variables (n = 3d over 10 clients)';
	plot '$out/small-n.csv' x=d y=tpr by=algo out='$out/small-n-tpr.png' force=yes
	title='TPR against the number of variables (n = 3d over 10 clients)'"
