# bench-fci: fci compat=causal-learn (chi2) beside causal-learn's fci on the same files, back to
# back on one processor (the thirteen bnlearn networks of test-fci; CAUSAL_LEARN=checkout,
# bench/fci-causal-learn.py), then FCI at d = 1,000, n = 5,000 (include from bench/local.mk)
EXTRA_PROGRAMS += bench/bench-fci
bench_bench_fci_SOURCES = bench/bench-fci.c bench/bench-common.c bench/bench-common.h
bench_bench_fci_CPPFLAGS = $(AM_CPPFLAGS) -DFB_TOP_SRCDIR='"$(abs_top_srcdir)"'
bench_bench_fci_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-fci
EXTRA_DIST += bench/fci-causal-learn.py bench/causal_learn_stand_ins.py
