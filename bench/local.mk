# benchmarks: programs that print figures (make bench); never part of the test suite
EXTRA_PROGRAMS += bench/bench-csv
bench_bench_csv_SOURCES = bench/bench-csv.c
bench_bench_csv_LDADD = libfedbn.la $(FB_LIB_DEPS)

FB_BENCHES = bench/bench-csv
include bench/local-notears.mk
include bench/local-pc.mk
CLEANFILES += $(FB_BENCHES)
EXTRA_DIST += bench/startup.sh

# build and run every benchmark (they find ../shared/data beside the source tree), then the
# start-up time
bench: $(FB_BENCHES) fedbn
	@for b in $(FB_BENCHES); do ./$$b || exit 1; done
	@FEDBN=./fedbn $(SHELL) $(srcdir)/bench/startup.sh
.PHONY: bench
