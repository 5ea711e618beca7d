# bench-admm: wall time and SHD of linear NOTEARS-ADMM on the shared synthetic data
EXTRA_PROGRAMS += bench/bench-admm
bench_bench_admm_SOURCES = bench/bench-admm.c bench/bench-common.c bench/bench-common.h
bench_bench_admm_LDADD = libfedbn.la $(FB_LIB_DEPS)
CLEANFILES += bench/bench-admm
