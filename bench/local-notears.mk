# bench-notears: wall time, evaluations and SHD of linear NOTEARS on the shared synthetic
# data, and fb_expm against gsl_linalg_exponential_ss (include from bench/local.mk)
EXTRA_PROGRAMS += bench/bench-notears
bench_bench_notears_SOURCES = bench/bench-notears.c bench/bench-common.c bench/bench-common.h
bench_bench_notears_CPPFLAGS = $(AM_CPPFLAGS) -DFB_TOP_SRCDIR='"$(abs_top_srcdir)"'
bench_bench_notears_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-notears
