#!/bin/sh
# Install what a Debian 12 machine lacks, build fedbn, then run one job:
#   sh setup.sh demo        the demo (data the program simulates itself; it writes
#                           demo-truth.png and demo-diff.png in this folder)
#   sh setup.sh check       the whole test suite
#   sh setup.sh asan-check  the whole test suite built with AddressSanitizer and UBSan
#   sh setup.sh fuzz [SECS] each fuzz target for SECS seconds (default 60)
#   sh setup.sh bench       the benchmarks (figures, never pass/fail)
# Builds go to build/ (build-asan/, build-fuzz/); the source tree stays clean.
# check, asan-check and fuzz end with one line "N passed, N failed, N skipped", and also
# write it to BUILD/summary.txt.
set -eu
job=${1:-demo}
top=$(cd "$(dirname "$0")" && pwd)

packages="build-essential autoconf automake libtool pkg-config libgsl-dev libopenblas-dev liblapacke-dev
	libgraphviz-dev libreadline-dev libncurses-dev libopenmpi-dev openmpi-bin libcmocka-dev libcsv-dev libnlopt-dev liblbfgs-dev liblbfgsb-dev tmux gnuplot-nox
	libxml2-utils"
case $job in fuzz) packages="$packages clang libclang-rt-14-dev" ;; esac

# install_missing: apt-get the packages that are not installed yet
install_missing() {
	missing=
	for p in $packages; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "setup: installing$missing"
	sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
		$missing >/dev/null
}

# build DIR CONFIGURE-ARGS...: configure (once) and make in DIR
build() {
	dir=$1
	shift
	[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi >/dev/null 2>&1)
	mkdir -p "$top/$dir"
	cd "$top/$dir"
	[ -f Makefile ] || "$top/configure" -q "$@"
	make -j"$(nproc)" >/dev/null
}

# summarize DIR: count test cases (cmocka cases inside a program; a script counts one)
summarize() {
	cd "$top/$1"
	pass=0 fail=0 skip=0
	for trs in $(find tests -name '*.trs' | sort); do
		log=${trs%.trs}.log
		res=$(sed -n 's/^:test-result: //p' "$trs" | head -n 1)
		if grep -q '^\[==========\] .* test(s) run' "$log" 2>/dev/null; then
			p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
			f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
			s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
			pass=$((pass + ${p:-0})) fail=$((fail + ${f:-0})) skip=$((skip + ${s:-0}))
			[ "$res" = PASS ] || [ "${f:-0}" != 0 ] || fail=$((fail + 1))
		else
			case $res in
			PASS | XFAIL) pass=$((pass + 1)) ;;
			SKIP) skip=$((skip + 1)) ;;
			*) fail=$((fail + 1)) ;;
			esac
		fi
	done
	echo "$pass passed, $fail failed, $skip skipped" | tee summary.txt
}

# run_suite DIR CONFIGURE-ARGS...: build and run every test; the summary line at the end
run_suite() {
	dir=$1
	build "$@"
	status=0
	make -j"$(nproc)" check >/dev/null 2>&1 || status=$?
	[ $status = 0 ] || grep -h -A40 '^FAIL\|^ERROR' tests/*.log tests/*/*.log 2>/dev/null |
		head -n 200 || true
	sed -n '/^# TOTAL/,/^# ERROR/p' test-suite.log
	summarize "$dir"
	return $status
}

# fuzz SECS: build the libFuzzer targets with clang and run each for SECS seconds
fuzz() {
	secs=$1
	build build-fuzz CC=clang --enable-fuzzers
	make -j"$(nproc)" tests/fuzz/fuzz-csv tests/fuzz/fuzz-cmdline tests/fuzz/fuzz-commands \
		tests/fuzz/fuzz-bif tests/fuzz/fuzz-circuit tests/fuzz/fuzz-wire >/dev/null
	# Graphviz and the libraries it renders with keep memory until exit (see the file)
	LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
	export LSAN_OPTIONS
	pass=0 fail=0
	for t in csv cmdline commands bif circuit wire; do
		corpus=$(mktemp -d)
		cp "$top/tests/fuzz/corpus-$t"/* "$corpus"/
		if ./tests/fuzz/fuzz-$t -max_total_time="$secs" -print_final_stats=1 \
			"$corpus" > "fuzz-$t.log" 2>&1; then
			echo "fuzz-$t: $(grep -o 'stat::number_of_executed_units: *[0-9]*' \
				"fuzz-$t.log" | grep -o '[0-9]*$') runs in ${secs}s, $(grep -o 'DONE *cov: [0-9]*' \
				"fuzz-$t.log" | grep -o 'cov: [0-9]*'), no failure"
			pass=$((pass + 1))
		else
			tail -n 40 "fuzz-$t.log"
			echo "fuzz-$t: FAILED (see build-fuzz/fuzz-$t.log)"
			fail=$((fail + 1))
		fi
		rm -rf "$corpus"
	done
	echo "$pass passed, $fail failed, 0 skipped" | tee summary.txt
	[ $fail = 0 ]
}

install_missing
case $job in
demo)
	build build
	cd "$top" && build/fedbn demo ;;
check)
	run_suite build ;;
asan-check)
	run_suite build-asan --enable-asan --enable-ubsan ;;
fuzz)
	fuzz "${2:-60}" ;;
bench)
	build build
	make bench ;;
*)
	echo "usage: sh setup.sh demo|check|asan-check|fuzz [SECS]|bench" >&2
	exit 2 ;;
esac
