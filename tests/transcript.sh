#!/bin/sh
# Transcript test: run fedbn on a script and compare everything it prints (standard output
# and standard error together) with the expected text beside the script.
#   tests/transcripts/NAME.fbn   the commands; directives in leading comment lines:
#       #! args: ...     extra options before -f (e.g. --bail)
#       #! stdin         feed the script on standard input instead of -f
#       #! exit: N       expected exit status (default 0)
#       #! needs: shared the test needs ../shared/data beside the source tree
#   tests/transcripts/NAME.out   the expected output
#   tests/transcripts/NAME.KERNEL.out   the expected output where OpenBLAS's kernel family
#       changes the last bits of a result (NOTEARS' dgemm sums, and what an optimiser or a
#       threshold makes of them): KERNEL is the family OPENBLAS_CORETYPE names, lower case;
#       unset, it is pinned to skylakex on a machine with AVX-512, haswell on one with AVX2
#       only, prescott (the generic kernel) on any other, so that every machine of a kind
#       computes the same bits.  Zen runs the haswell kernels; Cooperlake and SapphireRapids
#       the skylakex ones.  Without NAME.KERNEL.out, NAME.out (skylakex's) is expected.
# The script runs in a scratch folder holding 'data' (tests/data) and 'shared' (when
# present).  Wall times ("1.234 s") and the version and kernel in a replay's note are masked.  FB_REGEN=1 rewrites the expected file it
# would compare with (NAME.out, or NAME.KERNEL.out where that exists) from the actual output
# instead of comparing; FB_REGEN=kernel writes NAME.KERNEL.out for the pinned family.
script=$1
top=${top_srcdir:-.}
fedbn=${FEDBN:-./fedbn}
name=$(basename "$script" .fbn)
expected=$(dirname "$script")/$name.out
topabs=$(cd "$top" && pwd)

directive() {
	sed -n "s/^#! $1: *//p" "$script" | head -n 1
}

if grep -q '^#! needs: shared' "$script" && [ ! -d "$topabs/../shared/data" ]; then
	echo "SKIP: $name needs ../shared/data beside the source tree, and it is absent"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/fedbn-transcript.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
ln -s "$topabs/tests/data" "$work/data"
[ -d "$topabs/../shared/data" ] && ln -s "$topabs/../shared/data" "$work/shared"
cp "$script" "$work/script.fbn"
if [ -z "$OPENBLAS_CORETYPE" ]; then
	if grep -q '\<avx512f\>' /proc/cpuinfo 2>/dev/null; then
		OPENBLAS_CORETYPE=SkylakeX
	elif grep -q '\<avx2\>' /proc/cpuinfo 2>/dev/null; then
		OPENBLAS_CORETYPE=Haswell
	else
		OPENBLAS_CORETYPE=Prescott
	fi
	export OPENBLAS_CORETYPE
fi
kernel=$(echo "$OPENBLAS_CORETYPE" | tr 'A-Z' 'a-z')
# OpenBLAS's Zen target runs its Haswell kernels, Cooperlake and SapphireRapids its SkylakeX ones
case $kernel in
zen) kernel=haswell ;;
cooperlake | sapphirerapids) kernel=skylakex ;;
esac
[ "$FB_REGEN" = kernel ] && expected=$(dirname "$script")/$name.$kernel.out
[ -f "$(dirname "$script")/$name.$kernel.out" ] &&
	expected=$(dirname "$script")/$name.$kernel.out
want_status=$(directive exit)
args=$(directive args)

cd "$work" || exit 99
if grep -q '^#! stdin' script.fbn; then
	# shellcheck disable=SC2086
	FEDBN_HISTORY=/dev/null "$fedbn" $args < script.fbn > actual.out 2>&1
else
	# shellcheck disable=SC2086
	FEDBN_HISTORY=/dev/null "$fedbn" $args -f script.fbn < /dev/null > actual.out 2>&1
fi
status=$?
# wall times differ from run to run: mask every "1.234 s"; and the version and BLAS kernel
# that replay a saved session
sed -E -e 's/[0-9]+\.[0-9]{3} s/#.### s/g' \
	-e 's/replayed by fedbn [^ ]+ with [^:]+:/replayed by fedbn #VERSION with #KERNEL:/' \
	actual.out > masked.out && mv masked.out actual.out
cd - >/dev/null || exit 99

if [ -n "$FB_REGEN" ]; then
	cp "$work/actual.out" "$expected"
	echo "rewrote $expected (exit $status)"
	exit 0
fi
fail=0
if [ "$status" != "${want_status:-0}" ]; then
	echo "FAIL: $name exited $status, expected ${want_status:-0}"
	fail=1
fi
if ! diff -u "$expected" "$work/actual.out"; then
	echo "FAIL: $name output differs from $expected (above: - expected, + actual)"
	fail=1
fi
[ $fail = 0 ] && echo "PASS: $name"
exit $fail
