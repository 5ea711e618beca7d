# bench-feddag: one MCSL / FedDAG client step at d = 10 and 40 (include from bench/local.mk)
EXTRA_PROGRAMS += bench/bench-feddag
bench_bench_feddag_SOURCES = bench/bench-feddag.c bench/bench-common.c bench/bench-common.h
bench_bench_feddag_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-feddag
