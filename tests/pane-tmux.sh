#!/bin/sh
# The live pane on a real terminal (tmux): n steps exactly one round and a count then Enter
# that many; the progress view has plots with labelled axes; the clients view has one row per
# client; a resize redraws cleanly and a too small terminal is told so; q, Ctrl-C twice and
# SIGTERM give the terminal back (normal screen, visible cursor) with a working prompt,
# history and completion, after any number of visits; NO_COLOR draws without colour escapes;
# fedpc's detail view shows the votes per pair, then the separating sets; notears-mlp-admm's
# shows its sqrt(A) against the truth and each client's residuals; --no-pane prints one line
# per round.
fedbn=${FEDBN:-./fedbn}
. "${top_srcdir:-.}/tests/tmux-lib.sh"

# braille plots need a UTF-8 locale; without one the pane draws ASCII
utf8=C.UTF-8
locale -a 2>/dev/null | grep -qiE '^c\.utf-?8$' || utf8=C

# start NAME ENV [OPTIONS [COLUMNS ROWS]]: fedbn in a new session (100 x 30 unless given), its
# pid in $tmp/NAME.pid
start() {
	tmux -L "$sock" -f /dev/null new-session -d -s "$1" -x "${4:-100}" -y "${5:-30}" \
		"sh -c 'echo \$\$ > $tmp/$1.pid; exec env FEDBN_HISTORY=$tmp/history $2 $fedbn $3'; \
		echo EXITED-\$?; sleep 60"
	target=$1
	wait_for "fedbn>"
}

# flag NAME: a tmux pane flag (alternate_on, cursor_flag, ...)
flag() {
	tmux -L "$sock" display-message -p -t "$target" "#{$1}"
}

# round: the round counter of the pane's top bar
round() {
	screen | head -n 1 | sed -n 's/.* round \([0-9][0-9]*\) of .*/\1/p'
}

# expect_round N: the counter reaches N and stays there
expect_round() {
	wait_for " round $1 of "
	sleep 0.3
	[ "$(round)" = "$1" ] || fail "the round counter went past $1"
}

# back_at_prompt: the terminal is given back: normal screen, cursor shown, a prompt
back_at_prompt() {
	last_line_is "fedbn>"
	[ "$(flag alternate_on)" = 0 ] || fail "the alternate screen is still on after leaving"
	[ "$(flag cursor_flag)" = 1 ] || fail "the cursor is still hidden after leaving"
}

# colour_codes: SGR colour parameters (30-38, 40-48, 90-97, 100-107) in the escaped capture
colour_codes() {
	tmux -L "$sock" capture-pane -p -e -t "$target" | grep -o "$(printf '\033')\[[0-9;]*m" |
		tr -d '\033[m' | tr ';' '\n' | grep -cE '^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$'
}

# marks_fg: each graph mark (* + x o -) of the escaped capture as "LINE MARK FG BG", with the
# foreground and background colours in force when it was drawn (d: the default)
marks_fg() {
	tmux -L "$sock" capture-pane -p -e -t "$target" | awk -v esc="$(printf '\033')" '
	function sgr(s,   n, a, i) {
		n = split(s, a, ";")
		for (i = 1; i <= n; i++) {
			if (a[i] == "" || a[i] == 0) { fg = "d"; bg = "d" }
			else if (a[i] == 38 || a[i] == 48) {
				if (a[i] == 38) fg = "5;" a[i + 2]; else bg = "5;" a[i + 2]
				i += 2
			} else if (a[i] >= 30 && a[i] <= 37) fg = a[i]
			else if (a[i] == 39) fg = "d"
			else if (a[i] >= 40 && a[i] <= 47) bg = a[i]
			else if (a[i] == 49) bg = "d"
		}
	}
	BEGIN { fg = "d"; bg = "d" }
	{
		n = split($0, part, esc)
		for (k = 1; k <= n; k++) {
			text = part[k]
			if (k > 1 && match(text, /^\[[0-9;]*m/)) {
				sgr(substr(text, 2, RLENGTH - 2))
				text = substr(text, RLENGTH + 1)
			}
			for (c = 1; c <= length(text); c++)
				if (index("*+xo-", substr(text, c, 1)) > 0)
					print NR, substr(text, c, 1), fg, bg
		}
	}'
}

# marks_as_legend ROWS: every mark on the map's rows (those matching ROWS), the cursor's cell
# aside, has the colour the legend (line 3) gives it; at least one is checked
marks_as_legend() {
	rows=$(screen | grep -nE "$1" | grep -vF -- '->' | cut -d: -f1 | tr '\n' ' ')
	marks_fg > "$tmp/marks"
	awk -v rows=" $rows" '
		$1 == 3 { legend[$2] = $3; next }
		index(rows, " " $1 " ") > 0 && $4 != 43 && ($2 in legend) {
			checked++
			if ($3 != legend[$2]) { print "line " $1 ": " $2 " in " $3 ", the legend " legend[$2]; bad = 1 }
		}
		END { if (!checked) print "no mark checked"; exit bad || !checked }' "$tmp/marks" ||
		fail "a mark of the graph view has another colour than in its legend"
}

top=$(cd "${top_srcdir:-.}" && pwd) || exit 99
cd "$tmp" || exit 99
setup='gen er d=8 n=200 seed=1; split horizontal 4; algo notears-admm'

# --- stepping, views, resize, q -------------------------------------------------------
start a "LANG=$utf8 TERM=xterm-256color"
keys "$setup" Enter
wait_for "algorithm: notears-admm"
keys 'step' Enter
expect_round 1
[ "$(flag alternate_on)" = 1 ] || fail "step did not open the full-screen pane"
keys n
expect_round 2
keys n
expect_round 3
keys 5 Enter
expect_round 8
keys ' '
expect_round 9
keys 1 0 Enter
expect_round 19
keys 2 Enter
expect_round 21
# the progress view: plots with the rounds below them and y labels on an axis
screen | grep -qE '^ +objective +[-0-9.e+]+' || fail "no plot titled 'objective'"
screen | grep -qE '[0-9] *(\||│)' || fail "no labelled y axis"
screen | grep -qE '(\+|└)1 +round +21$' || fail "no round labels under the plots"
screen | grep -qE '^ +round +edges +SHD +objective' || fail "no table of the latest rounds"
[ "$(colour_codes)" -gt 0 ] || fail "no colour escapes on a colour terminal"
# at 100 columns the plots stand two a row: Down and j scroll one row of plots, Up back
screen | grep -q '^ plots 1-8 of 10 ' || fail "not 8 of 10 plots at 100 x 30"
keys Down
wait_for "plots 3-10 of 10"
keys Up
wait_for "plots 1-8 of 10"
keys j
wait_for "plots 3-10 of 10"
keys k
# the graph view: the legend and one labelled row per variable; each mark in its legend's
# colour; what rows and columns are, and what a dot and the shades mean
keys v
wait_for "correct"
[ "$(screen | grep -vF -- '->' | grep -cE '^ +X[1-8]( |$)')" = 8 ] ||
	fail "the graph view lacks 8 variable rows"
marks_as_legend '^ +X[1-8] '
screen | grep -q 'rows are parents, columns children' || fail "the graph view does not say rows are parents"
screen | grep -qE '(·|\.) under the threshold' || fail "the graph view does not explain its dots"
screen | grep -qE 'w < 0 +w > 0' || fail "the graph view does not explain its shades"
# the clients view: one row per client
keys v
wait_for "clients took part"
[ "$(screen | grep -cE '^ +[1-4] +50 +8 +yes ')" = 4 ] || fail "the clients view lacks 4 rows"
# the detail view, then Tab back to the progress view
keys v v
wait_for "consensus distance"
keys Tab
wait_for "objective"
# resize: the frame fits the new size and is what a full redraw gives
tmux -L "$sock" resize-window -t a -x 80 -y 24
for _ in $(seq 50); do [ "$(screen | wc -l)" = 24 ] && break; sleep 0.1; done
sleep 0.5
screen > "$tmp/resized"
keys C-l
sleep 0.5
screen > "$tmp/redrawn"
cmp -s "$tmp/resized" "$tmp/redrawn" ||
	{ diff "$tmp/resized" "$tmp/redrawn"; fail "the resized frame differs from a full redraw"; }
head -n 1 "$tmp/resized" | grep -q ' round 21 of 200 ' || fail "no top bar after the resize"
tail -n 1 "$tmp/resized" | grep -q 'q back' || fail "no bottom bar after the resize"
# too small: a notice instead of the pane, then the pane again
tmux -L "$sock" resize-window -t a -x 40 -y 10
wait_for "the pane needs"
tmux -L "$sock" resize-window -t a -x 80 -y 24
wait_for " round 21 of 200 "
# q gives a working prompt with the round line
keys q
back_at_prompt
screen | grep -q '^round   21  objective' || fail "no line for the last round after the pane"
keys 'echo after the pane' Enter
wait_for "after the pane"
# more visits; then history and completion still work
for i in 1 2 3; do
	keys 'step' Enter
	expect_round $((21 + i))
	keys q
	back_at_prompt
done
keys 'result' Enter
wait_for "notears-admm not finished: 24 rounds so far"
keys Up
last_line_is "fedbn> result"
keys C-u 'ec' Tab
last_line_is "fedbn> echo"
keys C-u
# run: until done, the pane stays until q
keys 'run' Enter
wait_for "finished after 197 rounds"
keys q
back_at_prompt
screen | grep -q 'notears-admm finished: 197 rounds' || fail "no finished line after run"
# watch, when the command table has it
if "$fedbn" --man-commands | grep -q 'Ic watch'; then
	keys 'watch' Enter
	wait_for " round 197 of 200 "
	keys q
	back_at_prompt
	keys 'watch off' Enter
	wait_for "the pane is off"
	keys 'watch' Enter
	wait_for "notears-admm finished: 197 rounds"
	[ "$(flag alternate_on)" = 0 ] || fail "watch off still opened the pane"
fi
keys C-d
wait_for "EXITED-0"

# --- Ctrl-C stops a long run; a second one leaves ---------------------------------------
start b "LANG=$utf8 TERM=xterm"
keys 'gen er d=50 n=200 seed=1; split horizontal 4; algo notears-admm' Enter
wait_for "algorithm: notears-admm"
keys 'run' Enter
wait_for "running"
keys C-c
wait_for "stopped after round"
r=$(round)
sleep 0.5
[ "$(round)" = "$r" ] || fail "the run went on after Ctrl-C"
[ "$r" -lt 197 ] || fail "the run finished before Ctrl-C"
keys C-c
back_at_prompt
screen | grep -q "stopped after round $r (Ctrl-C)" || fail "no stop line in the shell"
keys 'echo still here' Enter
wait_for "still here"
# Ctrl-D in the pane leaves it too
keys 'step' Enter
wait_for " round $((r + 1)) of "
keys C-d
back_at_prompt
# SIGTERM in the pane: the terminal is restored, then the program ends by the signal
keys 'step' Enter
wait_for " round $((r + 2)) of "
kill -TERM "$(cat "$tmp/b.pid")"
wait_for "EXITED-143"
[ "$(flag alternate_on)" = 0 ] || fail "SIGTERM left the alternate screen on"
[ "$(flag cursor_flag)" = 1 ] || fail "SIGTERM left the cursor hidden"

# --- NO_COLOR and no UTF-8: no colour escapes, ASCII plots ---------------------------------
start c "LANG=C NO_COLOR=1 TERM=xterm-256color"
keys "$setup" Enter
wait_for "algorithm: notears-admm"
keys 'step 20' Enter
expect_round 20
[ "$(colour_codes)" = 0 ] || fail "colour escapes with NO_COLOR set"
screen | grep -qE '^ +[-0-9.e+]+\|' || fail "no ASCII y axis without UTF-8"
keys Tab
wait_for "correct"
[ "$(colour_codes)" = 0 ] || fail "colour escapes in the graph view with NO_COLOR set"
keys q
back_at_prompt
keys C-d
wait_for "EXITED-0"

# --- fedpc's detail view at 80 x 24, no colour, no UTF-8: votes per pair in FedSkele, then
# the separating sets and the triples they oriented; the arrows scroll it ---------------------
start e "LANG=C NO_COLOR=1 TERM=xterm-256color"
tmux -L "$sock" resize-window -t e -x 80 -y 24
keys "sample $top/examples/asia.bif n=5000; split horizontal 5; algo fedpc" Enter
wait_for "algorithm: fedpc"
keys 'step' Enter
wait_for "fedpc  round 1 "
keys n
wait_for "fedpc  round 2 "
keys v v v v
wait_for "FedSkele layer 1, round 2"
screen | grep -qE '^ [a-z]+ +- [a-z]+ +votes [1-5]/5 +#+\|[#.]+ +kept$' ||
	fail "no kept pair with its votes out of 5"
screen | grep -qE '^ [a-z]+ +- [a-z]+ +votes 1/5 +#\|\.+ +removed$' ||
	fail "no removed pair with its votes out of 5"
screen | grep -q 'kept with 2 of 5 (vote=0.3, paper rule)' || fail "no vote threshold"
[ "$(colour_codes)" = 0 ] || fail "colour escapes in the fedpc detail view with NO_COLOR set"
keys r
wait_for "finished after 5 rounds"
screen | grep -qE '^ [a-z]+ +_\|\|_ [a-z]+ +p 0\.[0-9]+ +client [1-5] +given \{' ||
	fail "no separating set with its p-value and client after FedOrien"
screen | grep -qE '^ +[a-z]+ -> [a-z]+ <- [a-z]+ +v-structure$' || fail "no v-structure line"
keys Down
wait_for "rows 2-"
keys q
back_at_prompt
keys C-d
wait_for "EXITED-0"

# --- notears-mlp-admm's detail view: the server's sqrt(A) against the truth, then each
# client's local and global residuals -----------------------------------------------------------
start m "LANG=C NO_COLOR=1 TERM=xterm-256color"
keys 'gen er d=5 n=90 clients=3 hetero=yes seed=2; algo notears-mlp-admm; set max_rounds=3 hidden=3' Enter
wait_for "max_rounds"
keys 'run' Enter
wait_for "finished after 3 rounds"
keys v v v v
wait_for "residuals of each client"
screen | grep -q "the server's sqrt(A) (first-layer strengths), against the truth" ||
	fail "no sqrt(A) heat map in the notears-mlp-admm detail view"
[ "$(screen | grep -cE '^ +X[1-5] ')" = 5 ] || fail "the sqrt(A) heat map lacks 5 rows"
[ "$(screen | grep -cE '^ {7}[1-3] +[0-9.e+-]+ +[0-9.e+-]+ ')" = 3 ] ||
	fail "the detail view lacks the 3 clients' local and global residuals"
keys q
back_at_prompt
keys C-d
wait_for "EXITED-0"

# --- the graph view of fedpc (no weights) at 60 x 20: marks in the legend's colours, the
# cursor on the first edge; the top bar keeps whole fields and a gap before the view's name ---
start g "LANG=$utf8 TERM=xterm-256color" "" 60 20
keys 'gen er d=8 n=200 seed=1; split horizontal 4; algo fedpc' Enter
wait_for "algorithm: fedpc"
keys 'run' Enter
wait_for "finished after"
keys v
wait_for "correct"
marks_as_legend '^ +X[1-8] '
screen | grep -qE '^ X1 -> X[2-8]: (correct|extra|reversed)  ' ||
	fail "the cursor does not open on the first edge"
screen | head -n 1 | grep -qE '^ run 1: fedpc  round 3  [^ ].* (finished|[0-9] s|B)  +graph$' ||
	fail "the top bar at 60 columns cuts a field or runs into the view's name"
keys q
back_at_prompt
keys 'gen er d=8 n=200 seed=1; split horizontal 10; algo notears-admm' Enter
wait_for "algorithm: notears-admm"
keys 'step 3' Enter
expect_round 3
keys v v
wait_for "clients took part"
screen | head -n 1 | grep -qE '^ run 2: notears-admm  round 3 of 200( .*)? (waiting|[0-9] s|B)  +clients$' ||
	fail "the top bar at 60 columns cuts a field or runs into the view's name"
keys q
back_at_prompt
# long names: cut from the right, numbered ones keep their number
awk 'BEGIN { srand(3); print "temperature_1,temperature_2,temperature_10,pressure_of_air";
	for (i = 0; i < 300; i++) { a = rand(); b = a + rand() / 4; c = b + rand() / 4;
		printf "%.4f,%.4f,%.4f,%.4f\n", a, b, c, rand() } }' > "$tmp/long.csv"
keys "load $tmp/long.csv; algo pc; run" Enter
wait_for "finished after"
keys v
wait_for "rows are parents"
for name in 'temperat(…|~)1' 'temperat(…|~)2' 'tempera(…|~)10' 'pressure_(…|~)'; do
	screen | grep -qE "^ +$name( |$)" || fail "no row labelled '$name'"
done
keys q
back_at_prompt
keys C-d
wait_for "EXITED-0"

# --- the shell after the pane on terminals taller than 24 rows: with the prompt on the last
# row before the pane, every line after it still scrolls the whole screen (no scroll region
# of the terminal description's 24 rows is left behind) -------------------------------------
# shell_after_pane COLUMNS ROWS
shell_after_pane() {
	start "s$2" "LANG=$utf8 TERM=xterm-256color" "" "$1" "$2"
	for i in $(seq "$2"); do keys "echo fill $i" Enter; done
	wait_for "fill $2"
	keys 'gen er d=5 n=100; split horizontal 2; algo fedpc' Enter
	wait_for "algorithm: fedpc"
	keys 'run' Enter
	wait_for "finished after"
	keys q
	back_at_prompt
	keys 'echo one' Enter
	# the second line only once readline reads again: typed earlier, the tty echoes it
	# out of place
	for _ in $(seq 100); do
		[ "$(screen | grep -v '^$' | tail -n 2 | tr '\n' '|')" = "one|fedbn>|" ] && break
		sleep 0.1
	done
	keys 'echo two' Enter
	want="fedbn> echo one|one|fedbn> echo two|two|fedbn>|"
	for _ in $(seq 50); do
		[ "$(screen | tail -n 5 | tr '\n' '|')" = "$want" ] && break
		sleep 0.1
	done
	[ "$(screen | tail -n 5 | tr '\n' '|')" = "$want" ] ||
		fail "at $1 x $2 the lines after the pane do not scroll the whole screen"
	keys C-d
	wait_for "EXITED-0"
}
shell_after_pane 100 30
shell_after_pane 120 40
shell_after_pane 80 24

# --- --no-pane: one line per round ------------------------------------------------------------
start d "TERM=xterm" --no-pane
keys "$setup; step 3" Enter
wait_for "round    3  objective"
[ "$(flag alternate_on)" = 0 ] || fail "--no-pane opened the pane"
keys C-d
wait_for "EXITED-0"
echo "PASS: the pane steps, draws, resizes and gives the terminal back"
