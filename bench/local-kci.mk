# bench-kci: one KCI test at n = 1000 given 0, 1 and 2 variables beside 20 times causal-learn
# (include from bench/local.mk)
EXTRA_PROGRAMS += bench/bench-kci
bench_bench_kci_SOURCES = bench/bench-kci.c bench/bench-common.c bench/bench-common.h
bench_bench_kci_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-kci
