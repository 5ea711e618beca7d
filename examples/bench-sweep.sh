#!/bin/sh
# The sweep's speed: 600 cells of notears-admm at d = 20 (n = 256 rows over K = 5 .. 64
# clients, 10 seeds) on $JOBS processes (default 2), its time beside the target (under 2
# minutes on 2 cores), and what the sweep machinery (a process per cell, collecting rows,
# writing the file) adds to the cells' own time, beside its target (under 5 %): measured on
# 60 of the cells, once as a sweep with jobs=1 and once as the same commands one after the
# other in one process.  The load average is printed, since other work on the machine slows
# every wall time; the processor time (user + system, the cells' processes included, through
# /usr/bin/time when it is there) is printed beside it, and what it gives on 2 idle cores.
#   sh examples/bench-sweep.sh [quick]     (quick: 6 cells at K = 5, 6 and seeds 1..3 instead
#                                          of 600, and the machinery measured on those 6)
here=$(cd "$(dirname "$0")" && pwd)
fedbn=${FEDBN:-$here/../build/fedbn}
jobs=${JOBS:-2}
ks=5..64 seeds=10 mks="5 6 7 8 9 10"
[ "${1:-}" = quick ] && ks=5..6 seeds=3 mks="5 6"
mcells=$(($(echo $mks | wc -w) * seeds))
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cell="$here/notears-admm-cell.fbn"

# now: seconds since the epoch, with nanoseconds
now() {
	date +%s.%N
}

# cpu FILE COMMAND...: run COMMAND, its processor seconds (user + system, children included)
# into FILE ("?" without /usr/bin/time); COMMAND's own output is left alone
cpu() {
	file=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$file" "$@" && awk '{ printf "%.2f\n", $1 + $2 }' "$file" > "$file.s" && mv "$file.s" "$file"
	else
		echo "?" > "$file"
		"$@"
	fi
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) processors"
t0=$(now)
cpu "$tmp/big.cpu" "$fedbn" --no-pane -c "sweep d=20 n=256 K=$ks seed=1..$seeds algo=notears-admm
	file='$cell' out='$tmp/big.csv' jobs=$jobs show=shd,tpr" > "$tmp/big.log" 2>&1 ||
	{ cat "$tmp/big.log"; exit 1; }
t1=$(now)
cells=$(($(wc -l < "$tmp/big.csv") - 1))
awk -v a="$t0" -v b="$t1" -v n="$cells" -v k="$ks" -v s="$seeds" -v j="$jobs" -v c="$(cat "$tmp/big.cpu")" 'BEGIN {
	printf "sweep: %d cells of notears-admm (d = 20, n = 256, K = %s, %d seeds) on %d processes: %.1f s, processor time %s s (%s s on 2 idle cores) (target: under 120 s for 600 cells on 2 cores)\n", n, k, s, j, b - a, c, c == "?" ? "?" : sprintf("%.1f", c / 2) }'

# the machinery: K = $mks over the seeds (60 cells; quick: 6) as a sweep on one process, and
# the same commands in one process
cpu "$tmp/one.cpu" "$fedbn" --no-pane -c "sweep d=20 n=256 K=$(echo $mks | tr ' ' ,) seed=1..$seeds algo=notears-admm
	file='$cell' out='$tmp/one.csv' jobs=1" > "$tmp/one.log" 2>&1 || { cat "$tmp/one.log"; exit 1; }
sweep_wall=$(sed -n 's/^sweep: .* ran in \([0-9.]*\) s on .*(their own time \([0-9.]*\) s).*/\1 \2/p' "$tmp/one.log")
for k in $mks; do
	for seed in $(seq 1 "$seeds"); do
		sed -e '/^#/d' -e "s/\${d}/20/g; s/\${n}/256/; s/\${K}/$k/; s/\${seed}/$seed/; s/\${algo}/notears-admm/" "$cell"
	done
done > "$tmp/plain.fbn"
t0=$(now)
cpu "$tmp/plain.cpu" "$fedbn" --no-pane -f "$tmp/plain.fbn" > /dev/null 2>&1 || exit 1
t1=$(now)
echo "$sweep_wall" | awk -v a="$t0" -v b="$t1" -v m="$mcells" -v sc="$(cat "$tmp/one.cpu")" -v pc="$(cat "$tmp/plain.cpu")" '{
	plain = b - a
	printf "machinery: %d cells as a sweep on 1 process %.2f s, the cells inside it %.2f s (%+.1f %%), the same commands in one process %.2f s (%+.1f %%) (target: under 5 %%)\n", m, $1, $2, 100 * ($1 - $2) / $2, plain, 100 * ($1 - plain) / plain
	if (sc != "?" && pc != "?")
		printf "machinery in processor time: the sweep %.2f s, one process %.2f s (%+.1f %%)\n", sc, pc, 100 * (sc - pc) / pc }'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
