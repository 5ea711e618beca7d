#!/bin/sh
# The FedPC paper's alarm experiment (§4, Table IV): 5000 rows sampled from alarm.bif (sample
# seed 1), split unevenly over K = 3, 5, 10 and 15 clients (each at least n/(2K) rows; split
# seeds 1..SEEDS), G2 tests at alpha 0.01.  The paper reports SHD 6, 20, 23, 22 for FedPC and
# 22.7, 30.4, 44.8, 70.3 for PC-Avg (sep:pc).  SHD is the FedPC paper's: every CPDAG
# extended to a DAG by Dor and Tarsi, then extra + missing + reversed (the shd_dag column).
# One sweep, then the plot of SHD against the number of clients; mean ± standard error over
# the split seeds.
#   sh examples/fedpc-alarm.sh [quick] [SEEDS] [ALARM_BIF]  (SEEDS = 10; quick: 1 seed,
#                                                           K = 3 and 5, FedPC, sep:pc and
#                                                           all:pc)
# Writes alarm.csv, alarm-summary.{csv,md} and alarm-shd.png in $OUT (default:
# fedbn-figures); $JOBS and $FEDBN as in clients-sweep.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep-setup.sh"
seeds=${1:-10}
algos=fedpc,fedpc-simple1,fedpc-simple2,sep:pc,all:pc
ks=3,5,10,15
[ $quick = yes ] && seeds=${1:-1} algos=fedpc,sep:pc,all:pc ks=3,5
bif=${2:-$here/../../shared/data/bif/alarm.bif}
[ -r "$bif" ] || { echo "cannot read $bif: give the alarm network" >&2; exit 1; }
case $bif in *,* | *\ *) echo "the path of the network may hold no comma or blank" >&2; exit 1 ;; esac
exec "$fedbn" --bail --no-pane -c "sweep bif='$bif' K=$ks seed=1..$seeds algo=$algos
	file='$here/fedpc-alarm-cell.fbn' out='$out/alarm.csv' jobs=$jobs force=yes
	show=shd_dag,shd,tpr,fdr;
	plot '$out/alarm.csv' x=K y=shd_dag by=algo out='$out/alarm-shd.png' force=yes
	title='FedPC on alarm: SHD (as DAGs) against the number of clients (n = 5000)'"
