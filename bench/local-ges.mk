# bench-ges: wall time of GES on the causal-learn data of tests/data/ges (include from
# bench/local.mk)
EXTRA_PROGRAMS += bench/bench-ges
bench_bench_ges_SOURCES = bench/bench-ges.c bench/bench-common.c bench/bench-common.h
bench_bench_ges_CPPFLAGS = $(AM_CPPFLAGS) -DFB_TOP_SRCDIR='"$(abs_top_srcdir)"'
bench_bench_ges_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-ges
