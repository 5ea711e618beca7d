#!/bin/sh
# The FedDAG paper's Tables 1-3 (10 clients x 600 rows, ER2 and SF2 graphs, 2d expected
# edges), with fedbn's own simulators, printing mean ± standard deviation over seeds as the
# paper does:
#   table 1: linear Gaussian, IID: as-feddag-linear against NOTEARS on all rows, on each client
#            alone, and NOTEARS-ADMM;
#   table 2: one GP SEM for all clients (IID): gs-feddag and as-feddag against MCSL, GES and PC
#            on all rows and on each client alone;
#   table 3: heterogeneous clients (gen hetero=yes): gs-feddag against the same baselines.
# The paper (ER2, d = 10): table 1 AS-FedDAG SHD 1.3 ± 1.5; table 2 AS 1.8 ± 2.0, GS 2.4 ± 2.0,
# MCSL all 1.9 ± 1.5, sep 7.1 ± 3.2; table 3 GS 1.9 ± 1.6, MCSL all 19.4 ± 4.4, sep 9.2 ± 1.8.
# Each seed of table 2 or 3 takes minutes (the GP draw over 6000 rows, then several learners).
#   sh examples/feddag-tables.sh [quick] TABLE [SEEDS] [GRAPHS] [D] [FEDBN]
#        (SEEDS = 10, seeds 2021...; GRAPHS = "er sf"; D = 10; FEDBN = $FEDBN or build/fedbn;
#        quick: 1 seed, GRAPHS = er, D = 5, 60 rows a client, the FedDAG learners at
#        it_max=2 it_in=100 it_fl=50)
# Environment:
#   LEARNERS="gs-feddag as-feddag"  run only these learners (default: the table's list);
#   FIRST=2024                      the first seed (default 2021);
#   SF=gcastle                      the flavour of the sf graphs (gen's flavour=): notears
#                                   (the default: igraph's directed Barabasi-Albert, hubs
#                                   collect parents) or gcastle (networkx's undirected one,
#                                   randomly oriented, as the FedDAG code draws them); the
#                                   rows keep the label sf;
#   ROWS=FILE                       append every seed's compare rows to FILE (kept, so that a
#                                   long study can be resumed and summarised with
#                                   `awk -v spread=sd -f examples/summarize.awk FILE`).
here=$(cd "$(dirname "$0")" && pwd)
quick=no
[ "${1:-}" = quick ] && quick=yes && shift
table=${1:?usage: feddag-tables.sh [quick] 1|2|3 [SEEDS] [GRAPHS] [D] [FEDBN]}
seeds=${2:-10}
graphs=${3:-er sf}
d=${4:-10}
fedbn=${5:-${FEDBN:-$here/../build/fedbn}}
per=600 short=
[ $quick = yes ] && seeds=${2:-1} graphs=${3:-er} d=${4:-5} per=60 \
	short="set it_max=2 it_in=100 it_fl=50;"
first=${FIRST:-2021}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
rows=${ROWS:-$tmp/all.csv}
case $table in
1) data="sem=linear clients=10 hetero=no"
   learners="as-feddag-linear all:notears sep:notears notears-admm" ;;
2) data="sem=gp clients=10 hetero=no"
   learners="gs-feddag as-feddag all:mcsl sep:mcsl all:ges sep:ges all:pc sep:pc" ;;
3) data="clients=10 hetero=yes"
   learners="gs-feddag all:mcsl sep:mcsl all:ges sep:ges all:pc sep:pc" ;;
*) echo "feddag-tables.sh: table must be 1, 2 or 3, not '$table'" >&2; exit 2 ;;
esac
learners=${LEARNERS:-$learners}
for g in $graphs; do
	case $g in
	er) kind=er-bernoulli ;;
	sf) kind="sf${SF:+ flavour=$SF}" ;;
	*) echo "unknown graph '$g'" >&2; exit 2 ;;
	esac
	for i in $(seq 1 "$seeds"); do
		seed=$((first - 1 + i))
		cmds="gen $kind d=$d edges=$((2 * d)) n=$((per * 10)) seed=$seed $data; set threads=2"
		for a in $learners; do
			case $a in *feddag*) cmds="$cmds; algo $a; $short run" ;; *) cmds="$cmds; algo $a; run" ;; esac
		done
		rm -f "$tmp/run.csv"
		"$fedbn" --bail --no-pane -c "$cmds; compare out='$tmp/run.csv'" > "$tmp/log" 2>&1 ||
			{ cat "$tmp/log"; exit 1; }
		tail -n +2 "$tmp/run.csv" | sed "s/^/t$table-$g$d,/" >> "$rows"
		echo "table $table: $g d=$d seed $seed done" >&2
	done
done
awk -v spread=sd -f "$here/summarize.awk" "$rows"
