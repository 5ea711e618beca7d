# FedPC and its baselines (added to libalgo)
src_lib_algo_libalgo_la_SOURCES += \
	include/fedbn/fedpc.h \
	src/lib/algo/fedpc-int.h \
	src/lib/algo/fedpc.c \
	src/lib/algo/fedpc-orient.c \
	src/lib/algo/fedpc-simple.c \
	src/lib/algo/fedpc-text.c \
	src/lib/algo/fedpc-wire.c

check_PROGRAMS += tests/unit/test-fedpc
TESTS += tests/unit/test-fedpc
tests_unit_test_fedpc_SOURCES = tests/unit/test-fedpc.c
tests_unit_test_fedpc_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_fedpc_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)
