#!/bin/sh
# Writing files: an existing file fedbn did not write is kept unless force=yes; a symbolic
# link keeps pointing where it pointed and its target is replaced; a device is written in
# place (here /dev/full, through a link, so that a regular file never replaces the node), and
# its write error is one sentence with the session kept, PNG and SVG included.  (/dev/full
# itself is never the target: a broken build run as root would replace the device node.)
fedbn=${FEDBN:-./fedbn}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99
fail=0

# check WHAT CONDITION...: report a failed condition
check() {
	what=$1
	shift
	"$@" || { echo "FAIL: $what"; cat out.txt; fail=1; }
}

echo 'precious,1' > theirs.csv
echo 'old' > real.csv
ln -s real.csv link.csv
ln -s /dev/full full.png
ln -s /dev/full full.svg
ln -s /dev/full full.csv
ln -s missing.csv dangling.csv
"$fedbn" -c "gen er d=40 edges=60 n=50 seed=3; save theirs.csv; export theirs.csv;
	compare out=theirs.csv; truth save theirs.csv; save link.csv force=yes;
	export full.png; export full.svg; save full.csv; export full.csv; save dangling.csv;
	echo alive" > out.txt 2>&1
status=$?
check "exit status $status, expected 1" [ $status = 1 ]
check "theirs.csv was replaced" grep -qx 'precious,1' theirs.csv
check "no refusal for theirs.csv" \
	grep -q "save: 'theirs.csv' exists and fedbn did not write it in this session" out.txt
check "the link was replaced by a file" [ -L link.csv ]
check "the link's target was not written" grep -q '^X1,X2' real.csv
check "the PNG write error was not reported" \
	grep -qx "error: cannot export 'full.png': no space left on device" out.txt
check "the SVG write error was not reported" \
	grep -qx "error: cannot export 'full.svg': no space left on device" out.txt
check "the CSV write error was not reported" \
	grep -qx "error: cannot write 'full.csv': no space left on device" out.txt
check "the link to /dev/full was replaced" [ -L full.png ] && [ -L full.csv ]
check "the dangling link was not reported" \
	grep -q "cannot write 'dangling.csv': it is a symbolic link to a missing file" out.txt
check "the session did not survive the write errors" grep -qx alive out.txt
check "a temporary file was left behind" [ -z "$(find . -name '*.fedbn-tmp-*')" ]

# with force=yes a foreign file is replaced, and its mode is kept
chmod 640 theirs.csv
"$fedbn" -c "gen er d=3 n=5; save theirs.csv force=yes" > out.txt 2>&1
check "force=yes did not replace theirs.csv" grep -q '^X1,X2,X3' theirs.csv
check "the mode of theirs.csv changed" [ "$(stat -c %a theirs.csv)" = 640 ]

# a file fedbn wrote and someone else changed during the session is not replaced
mkfifo cmds
"$fedbn" < cmds > out.txt 2>&1 &
pid=$!
exec 3> cmds
echo "gen er d=3 n=5; save mine.csv" >&3
for _ in $(seq 200); do
	grep -q "wrote 'mine.csv'" out.txt && break
	sleep 0.05
done
echo 'added by hand' >> mine.csv
echo "save mine.csv; echo done" >&3
exec 3>&-
wait $pid
check "a file changed by hand was replaced" grep -qx 'added by hand' mine.csv
check "no refusal for the changed file" \
	grep -q "save: 'mine.csv' changed since fedbn wrote it" out.txt
[ $fail = 0 ] && echo "PASS: files are replaced only when they may be, and write errors keep the session"
exit $fail
