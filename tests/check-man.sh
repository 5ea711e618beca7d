#!/bin/sh
# The manual the build makes (fedbn.1) holds in its COMMANDS and ALGORITHMS blocks exactly what
# the command table and the algorithm registry generate, and is otherwise the source page
# man/fedbn.1, whose blocks stay empty: a command or algorithm added, renamed or re-documented
# reaches the manual with no edit to the page.
top=${top_srcdir:-.}
fedbn=${FEDBN:-./fedbn}
built=${FEDBN_MAN:-./fedbn.1}
page="$top/man/fedbn.1"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# block SECTION FILE: the lines of FILE's SECTION block, its comment lines left out
block() {
	sed -n "/^\\.\\\\\" BEGIN $1\$/,/^\\.\\\\\" END $1\$/p" "$2" | sed '1d;$d' | grep -v '^\.\\"'
}

# check SECTION OPTION: the built block equals what 'fedbn OPTION' prints; the source's is empty
check() {
	grep -q "^\\.\\\\\" END $1\$" "$page" || { echo "FAIL: $page has no BEGIN/END $1 block"; exit 1; }
	if [ -n "$(block "$1" "$page")" ]; then
		echo "FAIL: $page's $1 block holds text; the build fills it from the tables"
		exit 1
	fi
	block "$1" "$built" > "$tmp/page"
	"$fedbn" "$2" > "$tmp/table" || { echo "FAIL: fedbn $2 failed"; exit 1; }
	if ! diff -u "$tmp/page" "$tmp/table"; then
		echo "FAIL: $built's $1 block differs from 'fedbn $2' (rebuild it: make fedbn.1)"
		exit 1
	fi
}

# outside: FILE without the lines inside its blocks
outside() {
	sed '/^\.\\" BEGIN /,/^\.\\" END /{/^\.\\" \(BEGIN\|END\) /!d;}' "$1"
}

[ -f "$built" ] || { echo "FAIL: $built was not built"; exit 1; }
check COMMANDS --man-commands
check ALGORITHMS --man-algorithms
outside "$page" > "$tmp/src"
outside "$built" > "$tmp/out"
if ! diff -u "$tmp/src" "$tmp/out"; then
	echo "FAIL: $built differs from $page outside the generated blocks (rebuild it: make fedbn.1)"
	exit 1
fi
echo "PASS: the manual lists every command and algorithm as the tables do"
