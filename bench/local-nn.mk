# bench-nn: forward+backward time of the per-variable MLP stacks (include from bench/local.mk)
EXTRA_PROGRAMS += bench/bench-nn
bench_bench_nn_SOURCES = bench/bench-nn.c bench/bench-common.c bench/bench-common.h
bench_bench_nn_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-nn
