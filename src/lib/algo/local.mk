# algo: the learners' numerics (GSL and optim only; no terminal, no Graphviz)
noinst_LTLIBRARIES += src/lib/algo/libalgo.la
FB_LIB_PARTS += src/lib/algo/libalgo.la
src_lib_algo_libalgo_la_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
src_lib_algo_libalgo_la_SOURCES = \
	include/fedbn/notears.h \
	include/fedbn/admm.h \
	src/lib/algo/notears.c \
	src/lib/algo/admm.c \
	src/lib/algo/postprocess.c \
	include/fedbn/algo.h \
	src/lib/algo/run.c \
	src/lib/algo/registry.c \
	src/lib/algo/combine.h \
	src/lib/algo/combine.c \
	src/lib/algo/fit-memo.c \
	src/lib/algo/algo-notears.c \
	src/lib/algo/algo-admm.c \
	src/lib/algo/algo-circuit.c \
	include/fedbn/notears-mlp.h \
	src/lib/algo/mlp-int.h \
	src/lib/algo/mlp-common.c \
	src/lib/algo/notears-mlp.c \
	src/lib/algo/admm-mlp.c \
	src/lib/algo/algo-notears-mlp.c \
	include/fedbn/serve.h \
	src/lib/algo/serve.c

check_PROGRAMS += tests/unit/test-notears tests/unit/test-admm
TESTS += tests/unit/test-notears tests/unit/test-admm
tests_unit_test_notears_SOURCES = tests/unit/test-notears.c
tests_unit_test_notears_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_notears_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)
tests_unit_test_admm_SOURCES = tests/unit/test-admm.c
tests_unit_test_admm_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_admm_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)

check_PROGRAMS += tests/unit/test-fed
TESTS += tests/unit/test-fed
tests_unit_test_fed_SOURCES = tests/unit/test-fed.c
tests_unit_test_fed_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_fed_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)

check_PROGRAMS += tests/unit/test-notears-mlp
TESTS += tests/unit/test-notears-mlp
tests_unit_test_notears_mlp_SOURCES = tests/unit/test-notears-mlp.c
tests_unit_test_notears_mlp_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_notears_mlp_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)
