#!/bin/sh
# Install what a Debian 12 machine lacks, build fedbn, then run one job:
#   sh setup.sh demo        the demo (data the program simulates itself; it writes
#                           demo-truth.png and demo-diff.png in this folder)
#   sh setup.sh check       the whole test suite
#   sh setup.sh check-kernels  the unit tests and transcripts again under the OpenBLAS kernel
#                           families the suite does not pin here: Prescott (the generic
#                           kernel) and, on a machine with AVX-512, Haswell (AVX2); reuses build/
#   sh setup.sh asan-check  the whole test suite built with AddressSanitizer and UBSan
#   sh setup.sh fuzz [SECS] each fuzz target for SECS seconds (default 60)
#   sh setup.sh bench       the benchmarks (figures, never pass/fail)
# Builds go to build/ (build-asan/, build-fuzz/); the source tree stays clean.
# check, asan-check, check-kernels and fuzz end with one line "N passed, N failed, N skipped",
# and also write it to BUILD/summary.txt (check-kernels: build/summary-kernels.txt).  A failing
# test shows what failed: cmocka's ERROR and LINE lines, or a transcript's first differing lines.
set -eu
job=${1:-demo}
top=$(cd "$(dirname "$0")" && pwd)

packages="build-essential autoconf automake libtool pkg-config libgsl-dev libopenblas-dev liblapacke-dev
	libgraphviz-dev libreadline-dev libncurses-dev libopenmpi-dev openmpi-bin libcmocka-dev libsodium-dev libcsv-dev libnlopt-dev liblbfgs-dev liblbfgsb-dev tmux gnuplot-nox
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

# count LOG RES: add one test's cases to pass, fail and skip (RES: PASS, XFAIL, SKIP or
# another word for a failure): cmocka's cases inside a program, else the test counts one
count() {
	if grep -q '^\[==========\] .* test(s) run' "$1" 2>/dev/null; then
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)
		s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)
		pass=$((pass + ${p:-0})) fail=$((fail + ${f:-0})) skip=$((skip + ${s:-0}))
		[ "$2" = PASS ] || [ "${f:-0}" != 0 ] || fail=$((fail + 1))
	else
		case $2 in
		PASS | XFAIL) pass=$((pass + 1)) ;;
		SKIP) skip=$((skip + 1)) ;;
		*) fail=$((fail + 1)) ;;
		esac
	fi
}

# show_failure NAME LOG: what a failed test said: cmocka's ERROR and LINE lines, or a
# transcript's verdict and its first differing lines, else the end of its log
show_failure() {
	echo "FAIL $1 (log: $(pwd)/$2)"
	if grep -q '^\[ RUN      \]' "$2"; then
		grep -E '^\[  (ERROR|FAILED) +\]|\[   LINE   \]' "$2" | head -n 20
	elif grep -q '^@@ ' "$2"; then
		grep '^FAIL: .* exited' "$2"
		sed -n '/^--- /,$p' "$2" | head -n 30
	else
		tail -n 20 "$2"
	fi
}

# summarize DIR: count test cases (cmocka cases inside a program; a script counts one)
summarize() {
	cd "$top/$1"
	pass=0 fail=0 skip=0
	for trs in $(find tests -name '*.trs' | sort); do
		count "${trs%.trs}.log" "$(sed -n 's/^:test-result: //p' "$trs" | head -n 1)"
	done
	echo "$pass passed, $fail failed, $skip skipped" | tee summary.txt
}

# show_failures: each failed test of the suite just run in this folder, with what it said
show_failures() {
	for trs in $(find tests -name '*.trs' | sort); do
		case $(sed -n 's/^:test-result: //p' "$trs" | head -n 1) in
		FAIL | XPASS | ERROR) show_failure "${trs%.trs}" "${trs%.trs}.log" ;;
		esac
	done | head -n 400
}

# run_suite DIR CONFIGURE-ARGS...: build and run every test; the summary line at the end
run_suite() {
	dir=$1
	build "$@"
	status=0
	make -j"$(nproc)" check >/dev/null 2>&1 || status=$?
	[ $status = 0 ] || show_failures
	sed -n '/^# TOTAL/,/^# ERROR/p' test-suite.log
	summarize "$dir"
	return $status
}

# kernel_families: the OpenBLAS kernel families the suite's transcripts do not pin on this
# machine and that it can run: Prescott (the generic kernel) where the suite pins an AVX2 or
# AVX-512 one, and Haswell where it pins SkylakeX
kernel_families() {
	if grep -q '\<avx512f\>' /proc/cpuinfo 2>/dev/null; then
		echo Prescott Haswell
	elif grep -q '\<avx2\>' /proc/cpuinfo 2>/dev/null; then
		echo Prescott
	fi
}

# check_kernels: build/ (built once), then its unit tests and transcripts under each family
# of kernel_families, one after the other; the summary line at the end
check_kernels() {
	build build
	tests=$(make -s print-kernel-tests)
	# the unit programs (make check builds them; one that does not build fails below)
	make -j"$(nproc)" $(echo "$tests" | grep -v '\.fbn$') >/dev/null 2>&1 || true
	pass=0 fail=0 skip=0
	for core in $(kernel_families); do
		mkdir -p "kernels/$core"
		for t in $tests; do
			log=kernels/$core/$(basename "$t").log rc=0
			case $t in
			*.fbn) OPENBLAS_CORETYPE=$core top_srcdir=$top FEDBN=$top/build/fedbn \
				sh "$top/tests/transcript.sh" "$top/$t" > "$log" 2>&1 || rc=$? ;;
			*) OPENBLAS_CORETYPE=$core top_srcdir=$top ./"$t" > "$log" 2>&1 || rc=$? ;;
			esac
			case $rc in
			0) res=PASS ;;
			77) res=SKIP ;;
			*) res=FAIL ;;
			esac
			[ $res != FAIL ] || show_failure "$t under OPENBLAS_CORETYPE=$core" "$log"
			count "$log" $res
		done
		echo "kernel $core: $pass passed, $fail failed, $skip skipped so far"
	done
	echo "$pass passed, $fail failed, $skip skipped" | tee summary-kernels.txt
	[ $fail = 0 ]
}

# fuzz SECS: build the libFuzzer targets with clang and run each for SECS seconds
fuzz() {
	secs=$1
	build build-fuzz CC=clang --enable-fuzzers
	make -j"$(nproc)" tests/fuzz/fuzz-csv tests/fuzz/fuzz-cmdline tests/fuzz/fuzz-commands \
		tests/fuzz/fuzz-bif tests/fuzz/fuzz-circuit tests/fuzz/fuzz-wire tests/fuzz/fuzz-history \
		tests/fuzz/fuzz-graphfmt >/dev/null
	# Graphviz and the libraries it renders with keep memory until exit (see the file)
	LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
	export LSAN_OPTIONS
	pass=0 fail=0
	for t in csv cmdline commands bif circuit wire history graphfmt; do
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
check-kernels)
	check_kernels ;;
asan-check)
	run_suite build-asan --enable-asan --enable-ubsan ;;
fuzz)
	fuzz "${2:-60}" ;;
bench)
	build build
	make bench ;;
*)
	echo "usage: sh setup.sh demo|check|check-kernels|asan-check|fuzz [SECS]|bench" >&2
	exit 2 ;;
esac
