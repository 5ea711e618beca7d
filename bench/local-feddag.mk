# bench-feddag: MCSL at d = 10 and 40 (1,000 Adam steps, 600 rows) beside gCastle's MCSL on
# the same file (GCASTLE=checkout/gcastle; bench/mcsl-gcastle.py), then one GS-FedDAG round
# (include from bench/local.mk)
EXTRA_PROGRAMS += bench/bench-feddag
bench_bench_feddag_SOURCES = bench/bench-feddag.c bench/bench-common.c bench/bench-common.h
bench_bench_feddag_CPPFLAGS = $(AM_CPPFLAGS) -DFB_TOP_SRCDIR='"$(abs_top_srcdir)"'
bench_bench_feddag_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-feddag
EXTRA_DIST += bench/mcsl-gcastle.py
