#!/bin/sh
# fedbn under an address-space limit (ulimit -v): OpenBLAS retries a failed mapping of its
# 128 MiB work buffer forever, so fedbn must end, or refuse in one sentence, under any limit.
fedbn=${FEDBN:-./fedbn}
# a build with AddressSanitizer reserves terabytes of address space and cannot start
# under a limit: nothing to test there
if ! (ulimit -v 1000000 && "$fedbn" --version) >/dev/null 2>&1; then
	echo "SKIP: fedbn cannot start under ulimit -v 1000000 (a sanitizer build)"
	exit 77
fi
fail=0
refusal='^fedbn: the address-space limit (ulimit -v) of [0-9]* MiB is too small: fedbn needs at least [0-9]* MiB'
# under LIMIT kB: `echo hi` and a small NOTEARS run end in 20 s, with their output or with
# the one sentence of refusal (status 2); at 300 MB they must run
for limit in 150000 200000 300000 1000000; do
	out=$( (ulimit -v $limit && exec timeout 20 "$fedbn" --no-pane -c "echo hi" \
		-c "gen er d=6 n=500 seed=1; algo notears; run") 2>&1)
	status=$?
	if [ $status = 0 ] && printf '%s\n' "$out" | grep -qx hi &&
		printf '%s\n' "$out" | grep -q '^notears finished'; then
		echo "ok: ulimit -v $limit runs"
	elif [ $status = 2 ] && [ $limit -lt 300000 ] &&
		[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && printf '%s\n' "$out" | grep -q "$refusal"; then
		echo "ok: ulimit -v $limit refused: $out"
	else
		echo "FAIL: ulimit -v $limit: exit status $status (124: it did not end)"
		printf '%s\n' "$out" | head -5
		fail=1
	fi
done
# a computation after a load that takes most of the room reuses the buffer mapped at start
out=$( (ulimit -v 300000 && exec timeout 60 "$fedbn" --no-pane \
	-c "gen er d=10 n=600000 seed=1; algo notears; run") 2>&1)
status=$?
if [ $status != 0 ] || ! printf '%s\n' "$out" | grep -q '^notears finished'; then
	echo "FAIL: a run after a large gen under ulimit -v 300000: exit status $status"
	printf '%s\n' "$out" | tail -3
	fail=1
fi
[ $fail = 0 ] && echo "PASS: fedbn ends or refuses in one sentence under every limit"
exit $fail
