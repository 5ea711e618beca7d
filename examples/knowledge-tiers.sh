#!/bin/sh
# Background knowledge helps: on the shared synthetic files, each learner runs without
# knowledge and with the true topological order given as 3 tiers (the truth's variables in
# an order where every arc goes forward, cut into three equal parts: no arc may point from
# a later part into an earlier one), and the table gives its SHD both ways, file by file
# and the mean: SHD-DAG, the estimate extended to a DAG against the true DAG, since tiers
# mostly orient edges, which the SHD of a CPDAG estimate (an undirected edge over a true
# one counted correct) does not see.  A learner that cannot take knowledge says so.
#   sh examples/knowledge-tiers.sh [quick] [DATA_DIR]     (quick: two small files, pc and fedpc)
# Writes knowledge-*.txt and knowledge-tiers.csv in $OUT (default: fedbn-figures).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sweep-setup.sh"
data=${1:-$here/../../shared/data}/synth
[ -d "$data" ] || { echo "no data in $data: give the shared data folder" >&2; exit 1; }
files="A_d10_n30_s1 A_d20_n60_s1 B_d20_n256_s1 B_d20_n256_s2 B_d20_n256_s3 N_d10_n256_s1"
learners="pc ges notears fedpc notears-admm notears-mlp-admm as-feddag-linear voting:pc"
[ $quick = yes ] && files="A_d10_n30_s1 B_d20_n256_s1" learners="pc fedpc"

# tiers TRUTH OUT: a Tetrad knowledge file of 3 tiers from the truth's topological order
# (Kahn's, smallest name first among the free ones), over the variables of X.csv
tiers() {
	awk -F, -v x="$(head -n 1 "$(dirname "$1")/X.csv")" '
		NR == 1 { n = split(x, v, ","); for (i = 1; i <= n; i++) indeg[v[i]] = 0; next }
		{ kid[$1] = kid[$1] " " $2; indeg[$2]++ }
		END {
			for (done = 0; done < n; done++) {
				pick = ""
				for (i = 1; i <= n; i++)
					if (!(v[i] in used) && indeg[v[i]] == 0 && (pick == "" || v[i] < pick))
						pick = v[i]
				used[pick] = 1; order[done] = pick
				m = split(kid[pick], k, " ")
				for (j = 1; j <= m; j++) indeg[k[j]]--
			}
			print "/knowledge"; print "addtemporal"
			for (t = 0; t < 3; t++) {
				line = t + 1
				for (i = int(t * n / 3); i < int((t + 1) * n / 3); i++) line = line " " order[i]
				print line
			}
		}' "$1" > "$2"
}

echo "file,learner,shd_without,shd_with" > "$out/knowledge-tiers.csv"
for f in $files; do
	tiers "$data/$f/truth.csv" "$out/knowledge-$f.txt"
	for a in $learners; do
		split=
		case $a in fed* | *-admm | *feddag* | voting:*) split="split horizontal 4 shuffle=no" ;; esac
		line=$("$fedbn" --no-pane -c "load '$data/$f/X.csv'" -c "truth load '$data/$f/truth.csv'" \
			-c "$split" -c "algo $a" -c run -c "knowledge load '$out/knowledge-$f.txt'" \
			-c run -c "compare out='$out/kt.csv' force=yes" 2>&1 | grep "cannot take")
		if [ -n "$line" ]; then
			echo "$f,$a,,$(echo "$line" | sed 's/.*run: //; s/,/;/g')" >> "$out/knowledge-tiers.csv"
			continue
		fi
		awk -F, -v f="$f" -v a="$a" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ s[NR - 1] = $c["SHD-DAG"] } END { print f "," a "," s[1] "," s[2] }' \
			"$out/kt.csv" >> "$out/knowledge-tiers.csv"
	done
done
awk -F, 'NR > 1 && $4 ~ /^[0-9]+$/ { n[$2]++; w[$2] += $3; k[$2] += $4 }
	NR > 1 && $4 !~ /^[0-9]+$/ { why[$2] = $4 }
	END {
		printf "%-17s %6s %14s %14s\n", "learner", "files", "SHD-DAG alone", "with tiers"
		for (a in n) printf "%-17s %6d %14.2f %14.2f\n", a, n[a], w[a] / n[a], k[a] / n[a]
		for (a in why) if (!(a in n)) printf "%-17s %s\n", a, why[a]
	}' "$out/knowledge-tiers.csv" | { read -r head; echo "$head"; sort; }
