#!/bin/sh
# NOTEARS-ADMM's accuracy against the sample size: ER graphs with d edges, linear Gaussian,
# n = 64 .. 1024 rows split evenly over K = 16 clients; notears-admm against the voting and
# averaging baselines and NOTEARS on all rows, as one sweep and two plots (SHD and TPR
# against n).  The paper's setting (few rows per client) is the left of the plot.
#   sh examples/samples-sweep.sh [quick] [D] [SEEDS]   (D = 20, SEEDS = 10; quick: D = 5,
#                                                      SEEDS = 2, n = 64 and 256)
# Writes samples.csv, samples-summary.{csv,md}, samples-shd.png and samples-tpr.png in $OUT
# (default: fedbn-figures); $JOBS and $FEDBN as in clients-sweep.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep-setup.sh"
d=${1:-20}
seeds=${2:-10}
ns=64,128,256,512,1024
[ $quick = yes ] && d=${1:-5} seeds=${2:-2} ns=64,256
exec "$fedbn" --bail --no-pane -c "sweep d=$d n=$ns K=16 seed=1..$seeds
	algo=notears-admm,voting:notears,avg:notears,all:notears
	file='$here/notears-admm-cell.fbn' out='$out/samples.csv' jobs=$jobs force=yes
	show=shd,tpr,fdr;
	plot '$out/samples.csv' x=n y=shd by=algo logx=yes out='$out/samples-shd.png' force=yes
	title='SHD against the sample size (d = $d, K = 16)';
	plot '$out/samples.csv' x=n y=tpr by=algo logx=yes out='$out/samples-tpr.png' force=yes
	title='TPR against the sample size (d = $d, K = 16)'"
