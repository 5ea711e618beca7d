#!/bin/sh
# A vertical study across sites on this machine: fedbn simulates a dataset with an id per row,
# writes one CSV file per site holding the id and its own columns, each site's rows in its own
# order, then learns a federated circuit over MPI, one process per site, the sites' rows
# matched by the key column "id".  The same study runs in-process on the same column blocks,
# and the two circuits are compared byte for byte.
#   sh examples/mpi-vertical.sh [quick] [DIR]   (3 sites; files in DIR; quick: 200 rows and
#                                              2 EM rounds instead of 400 and 5)
# Needs fedbn built with Open MPI (sh setup.sh demo installs it) and mpirun.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
fedbn=${FEDBN:-$top/build/fedbn}
quick=no
[ "${1:-}" = quick ] && quick=yes && shift
n=400 em=5
[ $quick = yes ] && n=200 em=2
dir=${1:-$(mktemp -d)}
mkdir -p "$dir"
cd "$dir"
"$fedbn" -c "gen er d=6 edges=6 n=$n seed=12; save all.csv" >/dev/null
# site 1: id,X1,X2 in file order; site 2: X3,X4,id newest first; site 3: id,X5,X6 by X5
awk -F, 'NR == 1 { print "id,X1,X2" > "site-1.csv"; print "X3,X4,id" > "s2"; print "id,X5,X6" > "s3"; next }
	{ id = NR - 1; print id "," $1 "," $2 > "site-1.csv"; print $3 "," $4 "," id > "s2"
	  print id "," $5 "," $6 > "s3" }' all.csv
{ head -n 1 s2; tail -n +2 s2 | sort -r -t, -k3 -n; } > site-2.csv
{ head -n 1 s3; tail -n +2 s3 | sort -t, -k2 -g; } > site-3.csv
rm -f s2 s3
cat > study.fbn <<EOS
clients
algo fedcircuit-em
set em=$em
run
circuit save circuit.txt
EOS
echo "== over MPI: 1 server, 3 sites matched by 'id' (files in $dir)"
mpirun --oversubscribe --allow-run-as-root -np 1 "$fedbn" --no-pane -f study.fbn : \
	-np 3 "$fedbn" --client 'site-%r.csv' --key id | tee mpi.out
mkdir -p inproc
{ echo "load ../all.csv"; echo 'split vertical 3 cols="X1,X2;X3,X4;X5,X6"'; cat study.fbn; } \
	> inproc/study.fbn
(cd inproc && "$fedbn" --no-pane -f study.fbn > ../inproc.out)
if cmp -s circuit.txt inproc/circuit.txt; then
	echo "== the in-process run on the same column blocks learns the same circuit, byte for byte"
else
	echo "== the circuits differ: see $dir/circuit.txt and $dir/inproc/circuit.txt"
	exit 1
fi
