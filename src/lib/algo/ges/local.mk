# GES (added to libalgo); its local scores live in stats
src_lib_algo_libalgo_la_SOURCES += \
	include/fedbn/ges.h \
	src/lib/algo/ges/ges.c \
	src/lib/algo/ges/algo-ges.c

check_PROGRAMS += tests/unit/test-ges
TESTS += tests/unit/test-ges
tests_unit_test_ges_SOURCES = tests/unit/test-ges.c
tests_unit_test_ges_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_ges_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)
