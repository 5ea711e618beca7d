# Helpers of the tests that drive fedbn on a real terminal (tmux), sourced by them: a private
# tmux server named $sock, a scratch folder $tmp removed at exit, and the screen of the
# session $target.  Sourcing skips the test when tmux is not installed.
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed"; exit 77; }
tmp=$(mktemp -d) || exit 99
sock="fedbn-test-$$"
target=t

# cleanup: stop the tmux server and remove the scratch folder
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# screen: the visible pane of the current target, trailing blanks removed
screen() {
	tmux -L "$sock" capture-pane -p -t "$target" 2>/dev/null | sed 's/ *$//'
}

# fail MESSAGE: say what failed, show the screen, end the test
fail() {
	echo "FAIL: $1; the screen was:"
	screen
	exit 1
}

# wait_for TEXT: poll until a line contains TEXT (10 s at most)
wait_for() {
	for _ in $(seq 100); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	fail "timed out waiting for '$1'"
}

# last_line_is TEXT: the last non-empty line equals TEXT (10 s at most)
last_line_is() {
	for _ in $(seq 100); do
		[ "$(screen | grep -v '^$' | tail -n 1)" = "$1" ] && return 0
		sleep 0.1
	done
	fail "expected the last line to be '$1'"
}

# keys KEY...: type into the current target
keys() {
	tmux -L "$sock" send-keys -t "$target" "$@"
}
