#!/bin/sh
# FedDAG on the three datasets drawn by the FedDAG authors' generator (seed 2022, ER, d = 10,
# 17 true edges, 10 clients; ../shared/data/synth, described in NONLINEAR_REFERENCE.md), once
# per run seed, printing each run's SHD and the edges it misses or adds:
#   iid:    as-feddag on FD_iid_gp (authors' logged run: SHD 0);
#   hetero: gs-feddag on FD_hetero (logged: SHD 1);
#   linear: as-feddag-linear on FD_linear with it_in=1000 as the logged run (logged: SHD 4).
# SETTINGS are extra `set` words, e.g. the logged run's trainer for iid and hetero:
#   "loop=code it_fl=100 it_max=20 noise=common" (its command line's it_fl and max_iter, its
#   trainer's loop, and one noise sequence for every client as its samplers share one seed).
#   sh examples/feddag-authors.sh [quick] iid|hetero|linear [SEEDS] [SETTINGS] [FEDBN] [SYNTH]
#        (SEEDS = "1 2 3"; quick: seed 1 and 4 short rounds, it_max=2 it_in=100 it_fl=50,
#        instead of the authors' 25 x 1000 steps; FEDBN defaults to $FEDBN or build/fedbn)
here=$(cd "$(dirname "$0")" && pwd)
quick=no
[ "${1:-}" = quick ] && quick=yes && shift
which=${1:?usage: feddag-authors.sh [quick] iid|hetero|linear [SEEDS] [SETTINGS] [FEDBN] [SYNTH]}
seeds=${2:-1 2 3}
settings=$3
fedbn=${4:-${FEDBN:-$here/../build/fedbn}}
synth=${5:-$here/../../shared/data/synth}
case $which in
iid) dir=FD_iid_gp_d10_K10_s2022 algo=as-feddag base= ;;
hetero) dir=FD_hetero_d10_K10_s2022 algo=gs-feddag base= ;;
linear) dir=FD_linear_d10_K10_s2022 algo=as-feddag-linear base="it_in=1000" ;;
*) echo "feddag-authors.sh: the data are iid, hetero or linear, not '$which'" >&2; exit 2 ;;
esac
[ $quick = yes ] && seeds=${2:-1} base="it_max=2 it_in=100 it_fl=50"
[ -r "$synth/$dir/X.csv" ] || { echo "cannot read $synth/$dir/X.csv" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for s in $seeds; do
	"$fedbn" --bail --no-pane -c "load '$synth/$dir/X.csv'; truth load '$synth/$dir/truth.csv';
		split horizontal 10 shuffle=no; set threads=2; algo $algo;
		${base:+set $base;} ${settings:+set $settings;} seed $s; run; result; export '$tmp/est.csv' force=yes" \
		> "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
	line=$(grep -m 1 '^against the truth' "$tmp/log")
	rounds=$(grep -c '^round' "$tmp/log")
	# the edges one graph has and the other lacks, as "from->to"
	tail -n +2 "$synth/$dir/truth.csv" | tr -d '\r' | cut -d, -f1,2 | sort > "$tmp/t"
	tail -n +2 "$tmp/est.csv" | cut -d, -f1,2 | sort > "$tmp/e"
	miss=$(comm -23 "$tmp/t" "$tmp/e" | tr ',' '>' | sed 's/>/->/' | paste -sd' ' -)
	extra=$(comm -13 "$tmp/t" "$tmp/e" | tr ',' '>' | sed 's/>/->/' | paste -sd' ' -)
	echo "$which $algo seed $s ($rounds rounds${settings:+; $settings}): ${line#against the truth: }"
	echo "    not found: ${miss:-none}; not true: ${extra:-none}"
done
