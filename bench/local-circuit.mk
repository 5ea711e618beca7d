# bench-circuit: evaluation throughput of a 391-node circuit (include from bench/local.mk)
EXTRA_PROGRAMS += bench/bench-circuit
bench_bench_circuit_SOURCES = bench/bench-circuit.c bench/bench-common.c bench/bench-common.h
bench_bench_circuit_CPPFLAGS = $(AM_CPPFLAGS) -DFB_TOP_SRCDIR='"$(abs_top_srcdir)"'
bench_bench_circuit_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-circuit
