# bench-threads: each threaded path but PC's Fisher-z levels with one thread and with two, side
# by side, failing when their results differ (include from bench/local.mk)
EXTRA_PROGRAMS += bench/bench-threads
bench_bench_threads_SOURCES = bench/bench-threads.c bench/bench-common.c bench/bench-common.h
bench_bench_threads_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-threads
