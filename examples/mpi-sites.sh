#!/bin/sh
# A study across sites on this machine: fedbn simulates a dataset, writes one CSV file per site
# (contiguous blocks of rows) and the truth, then runs the study over MPI, one process per site:
# rank 0 is the server running the script, ranks 1..K the clients, each reading only its own
# file.  The same study runs in-process on the same blocks, and the two are compared.
#   sh examples/mpi-sites.sh [quick] [K] [DIR]   (K sites, 4 by default; files in DIR; quick:
#                                               2 sites, GS-FedDAG in 4 short rounds)
# Needs fedbn built with Open MPI (sh setup.sh demo installs it) and mpirun.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
fedbn=${FEDBN:-$top/build/fedbn}
quick=no
[ "${1:-}" = quick ] && quick=yes && shift
k=${1:-4}
feddag="it_in=300 it_fl=30 it_max=4"
[ $quick = yes ] && k=${1:-2} feddag="it_in=100 it_fl=50 it_max=2"
dir=${2:-$(mktemp -d)}
mkdir -p "$dir"
cd "$dir"
n=$((k * 150))
"$fedbn" -c "gen er d=8 edges=10 n=$n seed=11; save all.csv; truth save truth.csv" >/dev/null
awk -v k="$k" -v per=150 'NR == 1 { h = $0; for (c = 1; c <= k; c++) print h > ("site-" c ".csv"); next }
	{ print > ("site-" (int((NR - 2) / per) + 1) ".csv") }' all.csv
cat > study.fbn <<EOS
truth load truth.csv
algo notears-admm
run
result
algo fedpc
run
algo voting:pc
run
algo gs-feddag
set $feddag r=2 dropout=0.2
run
compare
EOS
echo "== over MPI: 1 server, $k sites (files in $dir)"
# each rank's output into its own files (mpirun forwards streams in pieces that may land
# inside another rank's line), then the server's shown
rm -rf ranks
mpirun --oversubscribe --allow-run-as-root --output-filename ranks -np 1 "$fedbn" --no-pane \
	-f study.fbn : -np "$k" "$fedbn" --client 'site-%r.csv' > /dev/null
cat ranks/*/rank.[1-9]*/stdout
cat ranks/*/rank.0/stdout | tee mpi.out
{ echo "load all.csv"; echo "split horizontal $k shuffle=no"; cat study.fbn; } > inproc.fbn
"$fedbn" --no-pane -f inproc.fbn > inproc.out
strip() { grep -E '^(round|  [A-Z])' "$1" | sed -E 's/  up [0-9.]+ k?B down .*$//'; }
if strip inproc.out | diff - "$(strip mpi.out > mpi.cmp && echo mpi.cmp)" >/dev/null; then
	echo "== the in-process run on the same blocks gives the same rounds and edges"
else
	echo "== the in-process run differs: see $dir/inproc.out and $dir/mpi.out"
	exit 1
fi
