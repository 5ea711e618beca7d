# bench-mlp: time and accuracy of notears-mlp and notears-mlp-admm on the shared nonlinear data
EXTRA_PROGRAMS += bench/bench-mlp
bench_bench_mlp_SOURCES = bench/bench-mlp.c bench/bench-common.c bench/bench-common.h
bench_bench_mlp_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-mlp
bench_bench_mlp_CPPFLAGS = $(AM_CPPFLAGS) -DFB_TOP_SRCDIR='"$(abs_top_srcdir)"'
