#!/bin/sh
# The command on fedbn's own command line: several arguments are one command, each argument
# one word (quoted for the shell's parser, so blanks and ';' stay inside it); a single argument
# holding blanks or ';' is a whole command line, as sh -c takes one.
fedbn=${FEDBN:-./fedbn}
fail=0

# expect WHAT WANT ARGS...: fedbn ARGS must print a line equal to WANT
expect() {
	what=$1 want=$2
	shift 2
	out=$(FEDBN_HISTORY=/dev/null "$fedbn" "$@" 2>&1)
	if ! printf '%s\n' "$out" | grep -qxF "$want"; then
		echo "FAIL: $what: expected a line '$want', got:"
		printf '%s\n' "$out"
		fail=1
	fi
}

expect "one argument with blanks is a line" "  5 rows, 3 variables (3 continuous, 0 discrete)" \
	'gen er d=3 n=5 seed=1; info'
expect "words keep their blanks" "a b" echo 'a b'
expect "words keep their ';'" "a;b" echo 'a;b'
expect "words keep their quotes" "it's" echo "it's"
expect "one word alone is a command" "error: unknown command 'nosuch' (type 'help' for the list)" nosuch
[ $fail = 0 ] && echo "PASS: command-args"
exit $fail
