#!/bin/sh
# The NOTEARS-ADMM paper's Figure 2 / 6: ER graphs with d edges, linear Gaussian, n = 256
# rows split evenly over K = 2 .. 64 clients; notears-admm against the voting, averaging and
# best-of baselines, mean ± standard error over seeds, as one sweep and two plots (SHD and TPR
# against K).  The paper at d = 20, K = 64: TPR 0.78 for notears-admm, 0.05 voting, 0.25
# averaging, 0.33 best.
#   sh examples/clients-sweep.sh [quick] [D] [SEEDS]     (D = 20, SEEDS = 10; quick: D = 5,
#                                                        SEEDS = 2, K = 2, 4, 8: 24 small cells)
# Writes clients.csv, clients-summary.{csv,md}, clients-shd.png and clients-tpr.png in $OUT
# (default: fedbn-figures); $JOBS cells at once (default: every processor); $FEDBN the
# program (default: build/fedbn beside this folder).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep-setup.sh"
d=${1:-20}
seeds=${2:-10}
ks=2,4,8,16,32,64
[ $quick = yes ] && d=${1:-5} seeds=${2:-2} ks=2,4,8
exec "$fedbn" --bail --no-pane -c "sweep d=$d n=256 K=$ks seed=1..$seeds
	algo=notears-admm,voting:notears,avg:notears,best:notears file='$here/notears-admm-cell.fbn'
	out='$out/clients.csv' jobs=$jobs force=yes show=shd,tpr,fdr;
	plot '$out/clients.csv' x=K y=shd by=algo logx=yes out='$out/clients-shd.png' force=yes
	title='SHD against the number of clients (d = $d, n = 256)';
	plot '$out/clients.csv' x=K y=tpr by=algo logx=yes out='$out/clients-tpr.png' force=yes
	title='TPR against the number of clients (d = $d, n = 256)'"
