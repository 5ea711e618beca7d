# circuit: probabilistic circuits, their leaves, inference and text format (core, data,
# stats and GSL only)
# the folders below this one, whose public headers it may include (tests/check-layering.sh)
src_lib_circuit_uses = core data stats
noinst_LTLIBRARIES += src/lib/circuit/libcircuit.la
FB_LIB_PARTS += src/lib/circuit/libcircuit.la
src_lib_circuit_libcircuit_la_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
src_lib_circuit_libcircuit_la_SOURCES = \
	include/fedbn/circuit.h \
	src/lib/circuit/circuit-private.h \
	src/lib/circuit/circuit.c \
	src/lib/circuit/check.c \
	src/lib/circuit/leaf.c \
	src/lib/circuit/eval.c \
	src/lib/circuit/graft.c \
	src/lib/circuit/sample.c \
	src/lib/circuit/io.c \
	src/lib/circuit/rdc.c \
	src/lib/circuit/kmeans.c \
	src/lib/circuit/distinct-rows.c \
	src/lib/circuit/learnspn.c \
	src/lib/circuit/learnspn-params.c \
	src/lib/circuit/stats.c \
	src/lib/circuit/gtest.c \
	src/lib/circuit/classify.c

check_PROGRAMS += tests/unit/test-circuit
TESTS += tests/unit/test-circuit

if FB_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz-circuit
tests_fuzz_fuzz_circuit_SOURCES = tests/fuzz/fuzz-circuit.c
tests_fuzz_fuzz_circuit_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined
tests_fuzz_fuzz_circuit_LDFLAGS = -fsanitize=fuzzer,address,undefined
tests_fuzz_fuzz_circuit_LDADD = libfedbn.la $(FB_LIB_DEPS)
endif
