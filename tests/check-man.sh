#!/bin/sh
# The man page's COMMANDS and ALGORITHMS lists must be exactly what the command and
# algorithm tables generate ('make update-man' rewrites them); a command or algorithm added,
# renamed or re-documented without the man page following fails here.
top=${top_srcdir:-.}
fedbn=${FEDBN:-./fedbn}
page="$top/man/fedbn.1"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# check SECTION OPTION: the page's SECTION block equals what 'fedbn OPTION' prints
check() {
	sed -n "/^\\.\\\\\" BEGIN $1\$/,/^\\.\\\\\" END $1\$/p" "$page" | sed '1d;$d' > "$tmp/page"
	"$fedbn" "$2" > "$tmp/table" || { echo "FAIL: fedbn $2 failed"; exit 1; }
	[ -s "$tmp/page" ] || { echo "FAIL: $page has no BEGIN/END $1 section"; exit 1; }
	if ! diff -u "$tmp/page" "$tmp/table"; then
		echo "FAIL: man/fedbn.1's $1 list differs from the table (run 'make update-man')"
		exit 1
	fi
}

check COMMANDS --man-commands
check ALGORITHMS --man-algorithms
echo "PASS: the man page lists every command and algorithm as the tables do"
