#!/bin/sh
# split under a memory limit: at every limit between the one where gen cannot hold the data
# and the one where every split fits, gen and split either work or say in one sentence that
# memory ran out, and the session goes on (no "fedbn: out of memory" exit).
fedbn=${FEDBN:-./fedbn}
# a build with AddressSanitizer reserves terabytes of address space and cannot start
# under a limit: nothing to test there
if ! (ulimit -v 1000000 && "$fedbn" --version) >/dev/null 2>&1; then
	echo "SKIP: fedbn cannot start under ulimit -v 1000000 (a sanitizer build)"
	exit 77
fi
fail=0
refused=0
# 600000 x 20 values take 96 MB; ten clients' copies as much again
limit=230000
while [ $limit -le 340000 ]; do
	out=$( (ulimit -v $limit && exec timeout 60 "$fedbn" --no-pane -c "gen er d=20 n=600000" \
		-c "split horizontal 10" -c "split vertical 4" -c "split hybrid 10" \
		-c "split horizontal 10 draw=replace" -c "echo alive") 2>&1)
	status=$?
	# a limit too small for the program and its BLAS buffer is refused at start: not split's
	if printf '%s\n' "$out" | grep -q '^fedbn: the address-space limit'; then
		limit=$((limit + 6000))
		continue
	fi
	if [ $status -gt 1 ] || ! printf '%s\n' "$out" | grep -qx alive ||
		printf '%s\n' "$out" | grep -q '^fedbn: out of memory'; then
		echo "FAIL: under ulimit -v $limit: exit status $status"
		printf '%s\n' "$out"
		fail=1
	fi
	printf '%s\n' "$out" | grep -q '^error: split: .*out of memory$' && refused=$((refused + 1))
	limit=$((limit + 6000))
done
# the test must reach split's refusal at some limit, or it tests nothing
[ $refused -gt 0 ] || { echo "FAIL: no limit made split run out of memory"; fail=1; }
[ $fail = 0 ] && echo "PASS: gen and split refuse what does not fit in one sentence at every limit ($refused refusals)"
exit $fail
