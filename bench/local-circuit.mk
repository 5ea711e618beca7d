# bench-circuit: evaluation throughput of a 391-node circuit; bench-learnspn: the learner on
# breast cancer (include from bench/local.mk)
EXTRA_PROGRAMS += bench/bench-circuit
bench_bench_circuit_SOURCES = bench/bench-circuit.c bench/bench-common.c bench/bench-common.h
bench_bench_circuit_CPPFLAGS = $(AM_CPPFLAGS) -DFB_TOP_SRCDIR='"$(abs_top_srcdir)"'
bench_bench_circuit_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-circuit

# bench-learnspn: learning time and test log-likelihood on the shared breast-cancer table
EXTRA_PROGRAMS += bench/bench-learnspn
bench_bench_learnspn_SOURCES = bench/bench-learnspn.c bench/bench-common.c bench/bench-common.h
bench_bench_learnspn_CPPFLAGS = $(AM_CPPFLAGS) -DFB_TOP_SRCDIR='"$(abs_top_srcdir)"'
bench_bench_learnspn_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-learnspn

# bench-fedcircuit: one-pass federated circuits on a million rows over ten clients
EXTRA_PROGRAMS += bench/bench-fedcircuit
bench_bench_fedcircuit_SOURCES = bench/bench-fedcircuit.c bench/bench-common.c bench/bench-common.h
bench_bench_fedcircuit_LDADD = libfedbn.la $(FB_LIB_DEPS)
FB_BENCHES += bench/bench-fedcircuit
