#!/bin/sh
# Mixed data: conditional Gaussian networks with known structure (gen discrete=K: K of the
# d variables are cut into 3 equal-frequency levels as they are simulated, so their
# children see the level), learned six ways: pc with the degenerate Gaussian test (dg), pc
# with Fisher-z on the level codes read as numbers, pc with G2 after every continuous
# column is cut into 3 equal-frequency bins (load bins=3), GES with the degenerate
# Gaussian BIC and with the linear BIC on codes, and FedPC with dg over 3 clients.  Prints
# the mean ± standard error of SHD (CPDAG against the truth's CPDAG) over the seeds.
#   sh examples/mixed-data.sh [quick] [SEEDS]      (SEEDS = 10; quick: d = 6, 1 seed)
# Writes mixed-*.csv and their summaries in $OUT (default: fedbn-figures); $JOBS and $FEDBN
# as in clients-sweep.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep-setup.sh"
seeds=${1:-10} d=10 n=1000 K=5
[ $quick = yes ] && seeds=${1:-1} d=6 n=300 K=3
gen="gen er d=$d edges=$d n=$n seed=\${seed} discrete=$K"
echo "mixed data: d = $d, $K discrete (3 levels), n = $n, $seeds seeds; SHD mean ± se"
# way NAME COMMANDS: one sweep of the commands after the generated data, its SHD line
way() {
	"$fedbn" --bail --no-pane -c "sweep seed=1..$seeds do=\"$gen; $2; run\"
		out='$out/mixed-$1.csv' jobs=$jobs progress=0 show=shd" > "$out/mixed-$1.log" 2>&1 ||
		{ cat "$out/mixed-$1.log"; exit 1; }
	awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
		NR == 2 { printf "%-12s %6.2f ± %.2f\n", name, $col["shd_mean"], $col["shd_se"] }' \
		"$out/mixed-$1-summary.csv"
}
way pc-dg "algo pc; set test=dg"
way pc-fisher-z "algo pc; set test=fisher-z"
way pc-binned "save '$out/mixed-\${seed}.csv' force=yes; load '$out/mixed-\${seed}.csv' bins=3; algo pc"
way ges-dg "algo ges; set score=dg"
way ges-bic "algo ges; set score=bic"
way fedpc-dg "split horizontal 3; algo fedpc; set test=dg"
