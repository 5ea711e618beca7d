# Sourced by test scripts: a scratch folder that is removed at exit (the script runs in it),
# $fedbn, $fail, and check WHAT CONDITION... that reports a failed condition.
fedbn=${FEDBN:-./fedbn}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99
fail=0

# check WHAT CONDITION...: report a failed condition
check() {
	what=$1
	shift
	"$@" || { echo "FAIL: $what"; fail=1; }
}
