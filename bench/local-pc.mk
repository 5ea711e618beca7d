# bench-pc: wall time, tests and cache hits of PC with Fisher-z on the shared synthetic data
# and on a simulated d = 1000 sample (include from bench/local.mk)
EXTRA_PROGRAMS += bench/bench-pc
bench_bench_pc_SOURCES = bench/bench-pc.c bench/bench-common.c bench/bench-common.h
bench_bench_pc_CPPFLAGS = $(AM_CPPFLAGS) -DFB_TOP_SRCDIR='"$(abs_top_srcdir)"' \
	-DFB_TOP_BUILDDIR='"$(abs_top_builddir)"'
bench_bench_pc_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-pc
