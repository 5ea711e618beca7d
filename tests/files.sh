#!/bin/sh
# Writing files: an existing file fedbn did not write is kept unless force=yes, and one it
# wrote in an earlier run may be replaced while nobody changed it (a script runs again); a symbolic
# link keeps pointing where it pointed and its target is replaced; a device is written in
# place (here /dev/full, through a link, so that a regular file never replaces the node), and
# its write error is one sentence with the session kept, PNG and SVG included.  (/dev/full
# itself is never the target: a broken build run as root would replace the device node.)
fedbn=${FEDBN:-./fedbn}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99
fail=0
XDG_STATE_HOME=$tmp/state
export XDG_STATE_HOME

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
	grep -q "save: 'theirs.csv' exists and fedbn did not write it; give another name" out.txt
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

# a circuit larger than the stream's buffer fails in the middle of its text: the reason still
ln -s /dev/full full.circuit
"$fedbn" -c "gen er d=20 n=3000 seed=2; algo circuit; set min_instances_slice=50; run;
	circuit save full.circuit" > out.txt 2>&1
check "circuit save did not give the reason" \
	grep -qx "error: circuit: cannot write 'full.circuit': no space left on device" out.txt

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

# a script run again replaces what its first run wrote, and only that
mkdir again && cd again || exit 99
study="gen er d=3 n=5 seed=1; save d.csv; truth save t.csv; export g.svg; algo pc; run;
	compare out=c.csv; session save s.fbn"
"$fedbn" -c "$study" > out.txt 2>&1
"$fedbn" -c "$study" > out.txt 2>&1
check "a second run of a script failed" [ $? = 0 ]
check "a second run did not rewrite every file" [ "$(grep -c "^wrote '" out.txt)" = 5 ]
echo 'edited' >> d.csv
mv g.svg kept.svg
echo 'mine' > t.csv
"$fedbn" -c "gen er d=3 n=5 seed=1; save d.csv; export kept.svg; truth save t.csv;
	export g.svg" > out.txt 2>&1
check "an edited file was replaced" grep -qx edited d.csv
check "no refusal for the edited file" \
	grep -qx "error: save: 'd.csv' changed since fedbn wrote it; give another name, or force=yes to replace it" out.txt
check "a renamed file was replaced" \
	grep -q "export: 'kept.svg' exists and fedbn did not write it" out.txt
check "a file put in the place of fedbn's was replaced" grep -qx mine t.csv
check "a file fedbn wrote after all of that was not written" grep -qx "wrote 'g.svg' (3 nodes, 3 edges)" out.txt
# a registry grown past its size is rewritten with the files still as written
reg=$XDG_STATE_HOME/fedbn/written
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "1 2 3 4 %d /nonexistent/file%d.csv\n", i, i }' >> "$reg"
"$fedbn" -c "gen er d=3 n=5 seed=1; save d.csv force=yes" > out.txt 2>&1
check "the registry was not rewritten" [ "$(wc -l < "$reg")" -lt 100 ]
check "the rewrite lost a file" grep -q "/again/g.svg\$" "$reg"
"$fedbn" -c "gen er d=3 n=5 seed=1; save d.csv; export g.svg" > out.txt 2>&1
check "a file kept by the rewrite was refused" [ $? = 0 ]
# without a registry (its folder cannot be made) only this session's files may be replaced
XDG_STATE_HOME=$tmp/theirs.csv "$fedbn" -c "gen er d=3 n=5; save new.csv; save new.csv" \
	> out.txt 2>&1
check "a session without a registry did not replace its own file" [ $? = 0 ]
XDG_STATE_HOME=$tmp/theirs.csv "$fedbn" -c "gen er d=3 n=5; save new.csv" > out.txt 2>&1
check "a file not recorded was replaced" grep -q "exists and fedbn did not write it" out.txt
cd .. || exit 99
[ $fail = 0 ] && echo "PASS: files are replaced only when they may be, and write errors keep the session"
exit $fail
