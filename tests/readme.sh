#!/bin/sh
# The README's sample session, run through the real program so that it cannot drift: the
# ```text block under the heading "## A short session" of README.md.
#   - Its first line, "$ ./build/fedbn [OPTION ...]", starts the shell.  The lines after it, up
#     to the first prompt, are what the shell prints on a terminal before that prompt; they are
#     compared with what the program prints when script(1) gives it a terminal.
#   - Each line starting with "fedbn> " is a command; the lines after it, up to the next
#     command or the end of the block, are everything it prints (standard output and standard
#     error together).  The commands run in batch mode (one -c each, with the same options),
#     in a scratch folder holding a link 'examples' to the source tree's examples folder: the
#     session's paths are those of the source tree's top folder, where the README starts the
#     shell, and the files it writes stay in the scratch folder.
#   - One elision: wall times (a number with three decimals then " s") compare as "#.### s".
# FB_REGEN=1 rewrites the block in README.md from the program's actual output instead.
top=${top_srcdir:-.}
fedbn=${FEDBN:-./fedbn}
readme=$top/README.md
topabs=$(cd "$top" && pwd)
command -v script >/dev/null 2>&1 || { echo "SKIP: script(1) is not installed"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/fedbn-readme.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

# the block, without its fences
awk '/^## A short session/ { h = 1; next } h && /^```text$/ { b = 1; next }
     b && /^```$/ { exit } b { print }' "$readme" > "$work/block"
start=$(head -n 1 "$work/block")
case $start in
'$ ./build/fedbn'*) ;;
*) echo "FAIL: the session in $readme does not start with '\$ ./build/fedbn'"; exit 1 ;;
esac
opts=${start#\$ ./build/fedbn}
grep '^fedbn> ' "$work/block" | sed 's/^fedbn> //' > "$work/commands"
[ -s "$work/commands" ] || { echo "FAIL: no 'fedbn> ' command in the session"; exit 1; }

# what the shell prints before its first prompt on a terminal (script(1) gives it one; the
# terminal echoes "quit" early if the program is slow to start, and that line is not its own)
(sleep 1; echo quit) | TERM=dumb FEDBN_HISTORY=/dev/null timeout 20 \
	script -qec "$fedbn$opts" /dev/null | tr -d '\r' | sed 's/\x1b[[?0-9;]*[a-zA-Z]//g' |
	awk '/^fedbn>/ { exit } $0 != "quit" { print }' > "$work/start.actual"
awk 'NR > 1 && /^fedbn> / { exit } NR > 1 { print }' "$work/block" > "$work/start.expected"

# the commands in batch mode, each echoed as at the prompt
set --
while IFS= read -r line; do
	quoted=$(printf '%s' "fedbn> $line" | sed "s/'/'\\\\''/g")
	set -- "$@" -c "echo '$quoted'" -c "$line"
done < "$work/commands"
ln -s "$topabs/examples" "$work/examples"
# shellcheck disable=SC2086
(cd "$work" && FEDBN_HISTORY=/dev/null "$fedbn" $opts "$@" < /dev/null > batch.actual 2>&1)
mask() {
	sed -E 's/[0-9]+\.[0-9]{3} s/#.### s/g' "$1"
}

if [ -n "$FB_REGEN" ]; then
	{ echo "$start"; cat "$work/start.actual" "$work/batch.actual"; } > "$work/new"
	awk -v new="$work/new" '
		/^## A short session/ { h = 1 }
		h == 1 && /^```text$/ { print; while ((getline l < new) > 0) print l; h = 2; skip = 1; next }
		skip && /^```$/ { skip = 0 }
		!skip { print }' "$readme" > "$work/README.md" && cp "$work/README.md" "$readme"
	echo "rewrote the session in $readme"
	exit 0
fi
fail=0
if ! diff -u "$work/start.expected" "$work/start.actual"; then
	echo "FAIL: the README's start of the shell differs from the program's (- README, + actual)"
	fail=1
fi
sed -n '/^fedbn> /,$p' "$work/block" > "$work/batch.expected"
mask "$work/batch.expected" > "$work/batch.expected.masked"
mask "$work/batch.actual" > "$work/batch.actual.masked"
if ! diff -u "$work/batch.expected.masked" "$work/batch.actual.masked"; then
	echo "FAIL: the README's session differs from the program's output (- README, + actual)"
	fail=1
fi
[ $fail = 0 ] && echo "PASS: the README's session is what the program prints"
exit $fail
