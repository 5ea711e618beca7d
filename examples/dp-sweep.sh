#!/bin/sh
# Differential privacy's price: SHD against epsilon for the learners that take noisy sums,
# on shared data, with secure=yes and the Gaussian mechanism on each round's sum
# (dp_epsilon=).  For each epsilon the noise dp_sigma= is the largest that fits
# the run's R noisy sums in (epsilon, 1e-5) by zCDP (rho = (sqrt(L + eps) - sqrt(L))^2,
# L = ln 1e5, and R / (2 sigma^2) = rho).  epsilon = inf is secure=yes without noise (the
# plain run's graph).  Several noise seeds (the session's seed) per file; the table gives
# mean and standard deviation of the SHD per learner and epsilon over files and seeds.
#  - notears-admm on the linear Gaussian files B_d20_n256_s1..3 (20 variables, 256 rows in
#    8 contiguous clients), max_rounds=50 so that the budget is shared by R = 50 sums; each
#    client clips its vector B_k + beta_k / rho2 to L2 norm 8 (dp_clip=, the sensitivity of
#    a sum: one client's whole vector, client-level privacy), about the norm of the true
#    weights, so that clipping rarely bites.
#  - fedc2sl on the discrete Sachs file (discrete10000/sachs.csv: 11 variables, 10,000 rows
#    in 8 contiguous clients), test=chi2, depth=3 (so that no level's tables pass the 2^22
#    counts a round may hold, however little noise removes), row-level privacy, nothing
#    clipped (a row adds 1 to one cell of each table of a round: the sum's sensitivity is
#    sqrt(T'), T' the tables and level counts it touches, and the noise dp_sigma times it);
#    R = 5 sums: levels 0 to 3 and the collider round of colliders=strength.
#  - fedpc on the same Sachs split, depth=3 (its default test on discrete data), client-level
#    privacy, nothing clipped (every number of a client's vector is 0 or 1: the sum's
#    sensitivity is the square root of its length, 1 + the pairs voted on); R = 5 sums:
#    layers 0 to 3 and FedOrien, which under dp_epsilon= is one round of noisy collider
#    votes.
#   sh examples/dp-sweep.sh [quick] [SEEDS]   (SEEDS = 3; quick: 1 seed, B_d20_n256_s1 and
#                                             Sachs, epsilon 10 and inf, every learner)
# fedpc-simple1 refuses dp_epsilon=.
# Writes dp-sweep.csv (one row per cell, epsilon and algo first), dp-sweep-summary.md and
# dp-sweep-shd.png in $OUT (default: fedbn-figures); $DATA is the shared data folder
# (default ../shared/data beside the source tree; absent: skipped with a message); $JOBS
# and $FEDBN as in clients-sweep.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep-setup.sh"
shared=${DATA:-$here/../../shared/data}
data=$shared/synth
disc=$shared/discrete10000
seeds=${1:-3}
files=B_d20_n256_s1,B_d20_n256_s2,B_d20_n256_s3
epsilons="0.1 0.3 1 3 10 100 1000 10000 100000 inf"
rounds=50
c2_rounds=5
fedpc_rounds=5
clip=8
delta=1e-5
if [ $quick = yes ]; then
	seeds=${1:-1} files=B_d20_n256_s1 epsilons="10 inf"
fi
for f in "$data/B_d20_n256_s1/X.csv" "$disc/sachs.csv"; do
	if [ ! -f "$f" ]; then
		echo "dp-sweep: skipped: the shared data is absent ($f)"
		exit 0
	fi
done

# The noise, in multiples of the sensitivity, that fits $2 sums in epsilon $1.
sigma() {
	awk -v e="$1" -v R="$2" -v d=$delta 'BEGIN { L = log(1 / d)
		rho = (sqrt(L + e) - sqrt(L))^2 * 0.999; printf "%.6g", sqrt(R / (2 * rho)) }'
}

# One learner's cells for every epsilon, appended to dp-sweep.csv: $1 the learner's name,
# $2 the sums R its budget is shared by, $3 the sweep's settings (tag=, seed=), $4 its do=
# script with @DP@ where the privacy settings go.
sweep_algo() {
	for e in $epsilons; do
		if [ "$e" = inf ]; then
			dp="dp_epsilon=0"
		else
			dp="dp_epsilon=$e dp_sigma=$(sigma "$e" "$2") dp_delta=$delta"
		fi
		"$fedbn" --bail --no-pane -c "sweep $3 jobs=$jobs force=yes
			out='$out/dp-eps.csv' progress=0 show=shd
			do=\"$(echo "$4" | sed "s|@DP@|$dp|")\"" > "$out/dp-eps.log" 2>&1 ||
			{ cat "$out/dp-eps.log"; exit 1; }
		awk -F, -v OFS=, -v e="$e" -v a="$1" \
			-v head="$([ -f "$out/dp-sweep.csv" ] && echo no)" \
			'NR == 1 { if (head != "no") print "epsilon", "algo", $0; next }
			{ print e, a, $0 }' "$out/dp-eps.csv" >> "$out/dp-sweep.csv"
	done
}

rm -f "$out/dp-sweep.csv"
sweep_algo notears-admm $rounds "tag=$files seed=1..$seeds" "load '$data/\${tag}/X.csv';
	truth load '$data/\${tag}/truth.csv'; split horizontal 8 shuffle=no; seed \${seed};
	algo notears-admm; set max_rounds=$rounds secure=yes @DP@ dp_clip=$clip; run"
sweep_algo fedc2sl $c2_rounds "tag=sachs seed=1..$seeds" "load '$disc/\${tag}.csv' discrete=all;
	truth load '$disc/\${tag}_truth.csv'; split horizontal 8 shuffle=no; seed \${seed};
	algo fedc2sl; set test=chi2 depth=3 secure=yes @DP@; run"
sweep_algo fedpc $fedpc_rounds "tag=sachs seed=1..$seeds" "load '$disc/\${tag}.csv' discrete=all;
	truth load '$disc/\${tag}_truth.csv'; split horizontal 8 shuffle=no; seed \${seed};
	algo fedpc; set depth=3 secure=yes @DP@; run"
rm -f "$out/dp-eps.csv" "$out/dp-eps-summary.csv" "$out/dp-eps-summary.md" "$out/dp-eps.log"

# Mean and standard deviation of the SHD per learner and epsilon, in the order swept.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{ e = $2 " | " $1; v = $(col["shd"]); if (!(e in n)) order[++m] = e
	  if (v != "") { n[e]++; s[e] += v; q[e] += v * v } else fail[e]++ }
	END { print "| algo | epsilon | cells | SHD mean | SHD sd | failed |"
	      print "|---|---|---|---|---|---|"
	      for (i = 1; i <= m; i++) { e = order[i]; k = n[e] + 0
	        mu = k ? s[e] / k : 0; sd = k > 1 ? sqrt((q[e] - k * mu * mu) / (k - 1)) : 0
	        printf "| %s | %d | %.2f | %.2f | %d |\n", e, k, mu, sd, fail[e] + 0 } }' \
	"$out/dp-sweep.csv" | tee "$out/dp-sweep-summary.md"

# The finite epsilons, plotted (inf has no place on a log axis: the table gives it).
awk -F, 'NR == 1 || $1 != "inf"' "$out/dp-sweep.csv" > "$out/dp-sweep-finite.csv"
"$fedbn" --bail --no-pane -c "plot '$out/dp-sweep-finite.csv' x=epsilon y=shd by=algo
	err=sd logx=yes out='$out/dp-sweep-shd.png' force=yes
	title='SHD against epsilon, K = 8: notears-admm (B_d20_n256, 50 sums), fedc2sl and fedpc (Sachs, 5 sums)'"
