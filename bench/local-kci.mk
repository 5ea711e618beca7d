# bench-kci: one KCI test at n = 1000 given 0, 1 and 2 variables beside 20 times causal-learn,
# then PC with KCI end to end at n = 200 and 1000 beside causal-learn's pc run on the same
# file (CAUSAL_LEARN=checkout; bench/pc-kci-causal-learn.py) (include from bench/local.mk)
EXTRA_PROGRAMS += bench/bench-kci
bench_bench_kci_SOURCES = bench/bench-kci.c bench/bench-common.c bench/bench-common.h
bench_bench_kci_CPPFLAGS = $(AM_CPPFLAGS) -DFB_TOP_SRCDIR='"$(abs_top_srcdir)"'
bench_bench_kci_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-kci
EXTRA_DIST += bench/pc-kci-causal-learn.py
