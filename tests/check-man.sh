#!/bin/sh
# The man page's COMMANDS list must be exactly what the command table generates
# ('make update-man' rewrites it); a command added, renamed or re-documented without the
# man page following fails here.
top=${top_srcdir:-.}
fedbn=${FEDBN:-./fedbn}
page="$top/man/fedbn.1"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
sed -n '/^\.\\" BEGIN COMMANDS/,/^\.\\" END COMMANDS/p' "$page" | sed '1d;$d' > "$tmp/page"
"$fedbn" --man-commands > "$tmp/table" || { echo "FAIL: fedbn --man-commands failed"; exit 1; }
[ -s "$tmp/page" ] || { echo "FAIL: $page has no BEGIN/END COMMANDS section"; exit 1; }
if ! diff -u "$tmp/page" "$tmp/table"; then
	echo "FAIL: man/fedbn.1's command list differs from the table (run 'make update-man')"
	exit 1
fi
echo "PASS: the man page lists every command as the table does"
