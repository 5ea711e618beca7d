#!/bin/sh
# Every example command line of the man page renders as it is written, whole on one line, so
# that a reader can paste it: each line of its literal displays (.Bd -literal) and each .Dl
# line, with the page's escapes undone, is a line of the page as groff renders it for an
# 80-column terminal (mdoc sets a ':' or ';' given as a macro's word against the word before,
# and breaks a long .Dl line).  Its mpirun lines are also lines of the README, which shows the
# same commands.  Skipped (77) without groff.
top=${top_srcdir:-.}
page=$top/man/fedbn.1
readme=$top/README.md
command -v groff >/dev/null 2>&1 || { echo "SKIP: groff is not installed"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# the page as man shows it at 80 columns, without overstrikes, each line trimmed
MANWIDTH=80 groff -mandoc -Tutf8 -rLL=78n "$page" 2>"$tmp/groff.err" | col -bx |
	sed 's/^ *//; s/ *$//' > "$tmp/rendered"
[ -s "$tmp/rendered" ] || { echo "FAIL: groff rendered nothing"; cat "$tmp/groff.err"; exit 1; }

# the example lines as written: literal displays' text lines and .Dl's words, escapes undone
awk '/^\.Bd -literal/ { lit = 1; next } /^\.Ed/ { lit = 0; next }
	lit && !/^\./ { print; next } /^\.Dl / { sub(/^\.Dl /, ""); print }' "$page" |
	sed 's/\\&//g; s/\\-/-/g; s/\\e/\\/g; s/^ *//; s/ *$//' > "$tmp/examples"
[ "$(wc -l < "$tmp/examples")" -ge 10 ] ||
	{ echo "FAIL: the page holds fewer than 10 example lines"; fail=1; }

while IFS= read -r line; do
	if ! grep -qxF -- "$line" "$tmp/rendered"; then
		echo "FAIL: the man page's example does not render as written: $line"
		grep -F -- "$(printf '%s' "$line" | cut -c1-20)" "$tmp/rendered" | sed 's/^/  rendered: /'
		fail=1
	fi
done < "$tmp/examples"

# the mpirun examples are the README's (one mpirun line at least)
grep '^mpirun ' "$tmp/examples" > "$tmp/mpirun"
[ -s "$tmp/mpirun" ] || { echo "FAIL: the man page shows no mpirun example"; fail=1; }
while IFS= read -r line; do
	grep -qxF -- "$line" "$readme" ||
		{ echo "FAIL: the man page's '$line' is not a line of README.md"; fail=1; }
done < "$tmp/mpirun"
# and say what root needs
grep -q 'allow-run-as-root' "$tmp/rendered" ||
	{ echo "FAIL: the man page does not say that mpirun needs --allow-run-as-root as root"; fail=1; }

[ $fail = 0 ] && echo "man-examples: $(wc -l < "$tmp/examples") example lines render as written"
exit $fail
