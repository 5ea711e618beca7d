# stats: correlation, conditional-independence tests (GSL; LAPACKE for KCI's eigenvalues)
noinst_LTLIBRARIES += src/lib/stats/libstats.la
FB_LIB_PARTS += src/lib/stats/libstats.la
src_lib_stats_libstats_la_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) $(LAPACKE_CFLAGS)
src_lib_stats_libstats_la_SOURCES = \
	include/fedbn/ci.h \
	src/lib/stats/ci-private.h \
	src/lib/stats/ci.c \
	src/lib/stats/ci-cache.c \
	src/lib/stats/ci-fisher.c \
	src/lib/stats/ci-partial.c \
	src/lib/stats/ci-separate.c \
	src/lib/stats/ci-discrete.c \
	src/lib/stats/ci-bits.c \
	src/lib/stats/ci-kci.c \
	src/lib/stats/ci-kci-lowrank.c \
	include/fedbn/lscore.h \
	src/lib/stats/lscore.c

check_PROGRAMS += tests/unit/test-ci
TESTS += tests/unit/test-ci
tests_unit_test_ci_SOURCES = tests/unit/test-ci.c
tests_unit_test_ci_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_ci_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)

check_PROGRAMS += tests/unit/test-kci
TESTS += tests/unit/test-kci
tests_unit_test_kci_SOURCES = tests/unit/test-kci.c
tests_unit_test_kci_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_kci_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)

check_PROGRAMS += tests/unit/test-ci-partial
TESTS += tests/unit/test-ci-partial
tests_unit_test_ci_partial_SOURCES = tests/unit/test-ci-partial.c
tests_unit_test_ci_partial_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(GSL_CFLAGS)
tests_unit_test_ci_partial_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)
