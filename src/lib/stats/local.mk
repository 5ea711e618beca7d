# stats: correlation, conditional-independence tests (GSL; LAPACKE for KCI's eigenvalues)
# the folders below this one, whose public headers it may include (tests/check-layering.sh)
src_lib_stats_uses = core graph data
noinst_LTLIBRARIES += src/lib/stats/libstats.la
FB_LIB_PARTS += src/lib/stats/libstats.la
src_lib_stats_libstats_la_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) $(LAPACKE_CFLAGS)
src_lib_stats_libstats_la_SOURCES = \
	include/fedbn/ci.h \
	src/lib/stats/ci-private.h \
	src/lib/stats/ci.c \
	src/lib/stats/ci-cache.c \
	src/lib/stats/ci-fisher.c \
	include/fedbn/ci-lazy.h \
	src/lib/stats/ci-lazy.c \
	src/lib/stats/ci-partial.c \
	src/lib/stats/ci-separate.c \
	src/lib/stats/ci-discrete.c \
	src/lib/stats/ci-discrete-dense.c \
	src/lib/stats/ci-bits.c \
	src/lib/stats/ci-pooled.c \
	src/lib/stats/ci-kci.c \
	src/lib/stats/ci-kci-lowrank.c \
	src/lib/stats/dg-private.h \
	src/lib/stats/dg.c \
	src/lib/stats/ci-dg.c \
	include/fedbn/lscore.h \
	src/lib/stats/lscore.c

check_PROGRAMS += tests/unit/test-ci
TESTS += tests/unit/test-ci

check_PROGRAMS += tests/unit/test-kci
TESTS += tests/unit/test-kci

check_PROGRAMS += tests/unit/test-ci-dg
TESTS += tests/unit/test-ci-dg

check_PROGRAMS += tests/unit/test-ci-partial
TESTS += tests/unit/test-ci-partial
tests_unit_test_ci_partial_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
