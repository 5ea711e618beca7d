#!/bin/sh
# Differential privacy's price: NOTEARS-ADMM's SHD against epsilon on the shared linear
# Gaussian files B_d20_n256_s1..3 (20 variables, 256 rows in 8 contiguous clients), with
# secure=yes and the Gaussian mechanism on each round's sum (dp_epsilon=), max_rounds=50 so
# that the budget is shared by 50 sums.  For each epsilon the noise dp_sigma= is the largest
# that fits 50 sums in (epsilon, 1e-5) by zCDP (rho = (sqrt(L + eps) - sqrt(L))^2, L =
# ln 1e5, and 50 / (2 sigma^2) = rho); each client clips its vector B_k + beta_k / rho2 to
# L2 norm 8 (dp_clip=, the sensitivity of a sum: one client's whole vector), about the norm
# of the true weights, so that clipping rarely bites.  epsilon = inf is secure=yes without
# noise (the plain run's graph).  Each file with several noise seeds (the session's seed);
# the table gives mean and standard deviation of the SHD over files and seeds.
#   sh examples/dp-sweep.sh [quick] [SEEDS]   (SEEDS = 3; quick: 1 seed, B_d20_n256_s1,
#                                             epsilon 10 and inf)
# fedpc refuses dp_epsilon= (its sums are whole counts that clipping and noise would
# destroy); fedc2sl takes row-level privacy instead (the man page), not swept here.
# Writes dp-sweep.csv (one row per cell, epsilon first), dp-sweep-summary.md and
# dp-sweep-shd.png in $OUT (default: fedbn-figures); $DATA is the shared data folder
# (default ../shared/data beside the source tree; absent: skipped with a message); $JOBS
# and $FEDBN as in clients-sweep.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep-setup.sh"
data=${DATA:-$here/../../shared/data}/synth
seeds=${1:-3}
files=B_d20_n256_s1,B_d20_n256_s2,B_d20_n256_s3
epsilons="0.1 0.3 1 3 10 100 1000 10000 100000 inf"
rounds=50
clip=8
delta=1e-5
if [ $quick = yes ]; then
	seeds=${1:-1} files=B_d20_n256_s1 epsilons="10 inf"
fi
if [ ! -f "$data/B_d20_n256_s1/X.csv" ]; then
	echo "dp-sweep: skipped: the shared data is absent ($data/B_d20_n256_s1)"
	exit 0
fi

# The noise, in multiples of the clip, that fits $rounds sums in epsilon $1.
sigma() {
	awk -v e="$1" -v R=$rounds -v d=$delta 'BEGIN { L = log(1 / d)
		rho = (sqrt(L + e) - sqrt(L))^2 * 0.999; printf "%.6g", sqrt(R / (2 * rho)) }'
}

rm -f "$out/dp-sweep.csv"
for e in $epsilons; do
	if [ "$e" = inf ]; then
		dp="dp_epsilon=0"
	else
		dp="dp_epsilon=$e dp_sigma=$(sigma "$e") dp_clip=$clip dp_delta=$delta"
	fi
	"$fedbn" --bail --no-pane -c "sweep tag=$files seed=1..$seeds jobs=$jobs force=yes
		out='$out/dp-eps.csv' progress=0 show=shd
		do=\"load '$data/\${tag}/X.csv'; truth load '$data/\${tag}/truth.csv';
		split horizontal 8 shuffle=no; seed \${seed}; algo notears-admm;
		set max_rounds=$rounds secure=yes $dp; run\"" > "$out/dp-eps.log" 2>&1 ||
		{ cat "$out/dp-eps.log"; exit 1; }
	awk -F, -v OFS=, -v e="$e" -v head="$([ -f "$out/dp-sweep.csv" ] && echo no)" \
		'NR == 1 { if (head != "no") print "epsilon", "algo", $0; next }
		{ print e, "notears-admm", $0 }' "$out/dp-eps.csv" >> "$out/dp-sweep.csv"
done
rm -f "$out/dp-eps.csv" "$out/dp-eps-summary.csv" "$out/dp-eps-summary.md" "$out/dp-eps.log"

# Mean and standard deviation of the SHD per epsilon, in the order swept.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{ e = $1; v = $(col["shd"]); if (!(e in n)) order[++m] = e
	  if (v != "") { n[e]++; s[e] += v; q[e] += v * v } else fail[e]++ }
	END { print "| epsilon | cells | SHD mean | SHD sd | failed |"
	      print "|---|---|---|---|---|"
	      for (i = 1; i <= m; i++) { e = order[i]; k = n[e] + 0
	        mu = k ? s[e] / k : 0; sd = k > 1 ? sqrt((q[e] - k * mu * mu) / (k - 1)) : 0
	        printf "| %s | %d | %.2f | %.2f | %d |\n", e, k, mu, sd, fail[e] + 0 } }' \
	"$out/dp-sweep.csv" | tee "$out/dp-sweep-summary.md"

# The finite epsilons, plotted (inf has no place on a log axis: the table gives it).
awk -F, 'NR == 1 || $1 != "inf"' "$out/dp-sweep.csv" > "$out/dp-sweep-finite.csv"
"$fedbn" --bail --no-pane -c "plot '$out/dp-sweep-finite.csv' x=epsilon y=shd by=algo
	err=sd logx=yes out='$out/dp-sweep-shd.png' force=yes
	title='notears-admm: SHD against epsilon (B_d20_n256, K = 8, 50 noisy sums)'"
