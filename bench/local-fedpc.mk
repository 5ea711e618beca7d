# bench-fedpc: FedPC round by round (fisher-z, 10 clients) on the shared synthetic data and
# on a simulated d = 1000 sample (include from bench/local.mk)
EXTRA_PROGRAMS += bench/bench-fedpc
bench_bench_fedpc_SOURCES = bench/bench-fedpc.c bench/bench-common.c bench/bench-common.h
bench_bench_fedpc_CPPFLAGS = $(AM_CPPFLAGS) -DFB_TOP_SRCDIR='"$(abs_top_srcdir)"'
bench_bench_fedpc_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-fedpc
