# Federated circuits (added to libalgo): one-pass assembly, distributed EM, federated
# evaluation and the communication cost formulas
src_lib_algo_libalgo_la_SOURCES += \
	include/fedbn/fedcircuit.h \
	src/lib/algo/circuit/fc-int.h \
	src/lib/algo/circuit/fedcircuit.c \
	src/lib/algo/circuit/fc-assemble.c \
	src/lib/algo/circuit/fc-eval.c \
	src/lib/algo/circuit/fc-score.c \
	src/lib/algo/circuit/algo-fedcircuit.c

check_PROGRAMS += tests/unit/test-fedcircuit
TESTS += tests/unit/test-fedcircuit
tests_unit_test_fedcircuit_SOURCES = tests/unit/test-fedcircuit.c
tests_unit_test_fedcircuit_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_fedcircuit_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)
