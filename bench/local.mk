# benchmarks: programs that print figures (make bench); never part of the test suite
EXTRA_PROGRAMS += bench/bench-csv
bench_bench_csv_SOURCES = bench/bench-csv.c
bench_bench_csv_LDADD = libfedbn.la $(FB_LIB_DEPS)

FB_BENCHES = bench/bench-csv
CLEANFILES += $(FB_BENCHES)

# build and run every benchmark
bench: $(FB_BENCHES)
	@for b in $(FB_BENCHES); do ./$$b || exit 1; done
.PHONY: bench
