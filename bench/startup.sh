#!/bin/sh
# Start-up time: fedbn running one empty command line and leaving, averaged over many runs
# (the work before the first prompt: loading libraries, the GSL handler, the session).
fedbn=${FEDBN:-./fedbn}
runs=${RUNS:-200}
start=$(date +%s%N)
i=0
while [ $i -lt "$runs" ]; do
	"$fedbn" -c '' </dev/null >/dev/null || exit 1
	i=$((i + 1))
done
end=$(date +%s%N)
echo "start-up: $(( (end - start) / runs / 1000 )) us per run (mean of $runs runs of 'fedbn -c \"\"')"
