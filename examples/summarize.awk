# Mean and standard error per (setting, algorithm) of the compare CSV rows that the example
# scripts collect: input lines "setting,<compare CSV row>"; prints one table row per group.
# Columns of a compare row: run, label, algorithm, dataset, split, parameters, SHD, SHD-DAG,
# SHD-CPDAG, TPR, FDR, F1, NNZ, rounds, seconds, bytes; rows group by their label, or by their
# algorithm when they have none.  -v shd=dag (or cpdag) reports that SHD instead of the
# NOTEARS-style one (an undirected estimate over a true edge costs nothing).  -v spread=sd
# prints the standard deviation over seeds instead of the standard error (the FedDAG paper's
# tables give mean ± standard deviation).
BEGIN { FS = ","; col = shd == "dag" ? 8 : shd == "cpdag" ? 7 : 9 }
function add(key, col, v) { n[key, col]++; s[key, col] += v; ss[key, col] += v * v }
function mean(key, col) { return s[key, col] / n[key, col] }
function se(key, col,    m, var) {
	if (n[key, col] < 2) return 0
	m = mean(key, col)
	var = (ss[key, col] - n[key, col] * m * m) / (n[key, col] - 1)
	return sqrt(var > 0 ? var : 0) / (spread == "sd" ? 1 : sqrt(n[key, col]))
}
{
	# the split column holds spaces but no commas; parameters may be quoted: take from the end
	key = $1 SUBSEP ($3 != "" ? $3 : $4)
	if (!(key in seen)) { seen[key] = 1; order[++count] = key }
	nf = NF
	add(key, "shd", $(nf - col)); add(key, "tpr", $(nf - 6)); add(key, "fdr", $(nf - 5))
	add(key, "sec", $(nf - 1))
}
END {
	printf "%-14s %-20s %6s %16s %14s %14s %10s\n", "setting", "algorithm", "runs", shd == "" ? "SHD" : "SHD-" toupper(shd), "TPR", "FDR", "seconds"
	for (i = 1; i <= count; i++) {
		split(order[i], part, SUBSEP)
		k = order[i]
		printf "%-14s %-20s %6d %8.2f ± %5.2f %6.3f ± %5.3f %6.3f ± %5.3f %10.2f\n", part[1], part[2], n[k, "shd"], mean(k, "shd"), se(k, "shd"), mean(k, "tpr"), se(k, "tpr"), mean(k, "fdr"), se(k, "fdr"), mean(k, "sec")
	}
}
