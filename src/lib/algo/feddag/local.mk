# MCSL and FedDAG (added to libalgo): the masked learner and its two federated forms
src_lib_algo_libalgo_la_SOURCES += \
	include/fedbn/mcsl.h \
	include/fedbn/feddag.h \
	src/lib/algo/feddag/mcsl.c \
	src/lib/algo/feddag/algo-feddag.c

check_PROGRAMS += tests/unit/test-feddag
TESTS += tests/unit/test-feddag
tests_unit_test_feddag_SOURCES = tests/unit/test-feddag.c
tests_unit_test_feddag_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_feddag_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)
