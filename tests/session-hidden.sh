#!/bin/sh
# A saved session runs no command hidden in a word: a new line inside a quoted argument of a
# command that wrote a file (saved as a comment) or of any other command is saved as \x0A
# inside quotes, so that 'fedbn -f' of the saved script writes no pwned.dot, runs exactly
# the commands saved, and reads the words back with the same bytes.
. "${top_srcdir:-..}/tests/scratch-lib.sh"
nl='
'
FEDBN_HISTORY=/dev/null "$fedbn" --no-pane \
	-c "gen er d=3 n=20 seed=1; export a.dot title=\"x${nl}export pwned.dot force=yes${nl}\"" \
	-c "echo \"one${nl}export pwned2.dot force=yes${nl}two	tab\"" \
	-c 'session save s.fbn' > first.out 2>&1
check "the first session failed: $(tail -n 3 first.out)" [ $? = 0 ]
check "the first session wrote pwned.dot itself" [ ! -e pwned.dot ]
check "the saved script holds other commands than gen and echo: $(cat s.fbn)" \
	[ "$(grep -vc '^#' s.fbn)" = 2 ]
check "the saved script holds no one line for the export: $(cat s.fbn)" \
	[ "$(grep -c '^# export' s.fbn)" = 1 ]
check "the export was not saved as one comment line with \\x0A" \
	grep -qx '# export a.dot "title=x\\x0Aexport pwned.dot force=yes\\x0A"' s.fbn
check "the echo was not saved as one line with \\x0A and \\x09" \
	grep -qx 'echo "one\\x0Aexport pwned2.dot force=yes\\x0Atwo\\x09tab"' s.fbn
rm -f a.dot
FEDBN_HISTORY=/dev/null "$fedbn" --no-pane -f s.fbn -c 'history' > replay.out 2>&1
check "the replay failed: $(tail -n 3 replay.out)" [ $? = 0 ]
check "the replay wrote pwned.dot" [ ! -e pwned.dot ]
check "the replay wrote pwned2.dot" [ ! -e pwned2.dot ]
check "the replay ran the export saved as a comment" [ ! -e a.dot ]
check "the replay did not echo the word with its new lines: $(cat replay.out)" \
	grep -qx 'two	tab' replay.out
check "the replay ran other commands than gen and echo: $(cat replay.out)" \
	[ "$(grep -c '^ *[0-9][0-9]*  ' replay.out)" = 2 ]
[ $fail = 0 ] || cat s.fbn replay.out
exit $fail
