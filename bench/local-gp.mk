# bench-gp: gen er d=40 n=6000 sem=gp beside its 30 s target (include from bench/local.mk)
EXTRA_PROGRAMS += bench/bench-gp
bench_bench_gp_SOURCES = bench/bench-gp.c bench/bench-common.c bench/bench-common.h
bench_bench_gp_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-gp
