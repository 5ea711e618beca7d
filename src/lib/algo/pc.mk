# PC and the CPDAG tools (added to libalgo and libgraph)
src_lib_graph_libgraph_la_SOURCES += \
	include/fedbn/cpdag.h \
	src/lib/graph/cpdag.c

src_lib_algo_libalgo_la_SOURCES += \
	include/fedbn/pc.h \
	src/lib/algo/pc.c \
	src/lib/algo/pc-sepsets.c \
	src/lib/algo/pc-skeleton.c \
	src/lib/algo/pc-orient.c \
	src/lib/algo/pc-causal-learn.c \
	src/lib/algo/pc-tester.c \
	src/lib/algo/pc-tester.h \
	src/lib/algo/pc-params.h \
	src/lib/algo/algo-pc.c

check_PROGRAMS += tests/unit/test-cpdag tests/unit/test-pc tests/unit/test-pc-causal-learn
TESTS += tests/unit/test-cpdag tests/unit/test-pc tests/unit/test-pc-causal-learn
tests_unit_test_cpdag_SOURCES = tests/unit/test-cpdag.c
tests_unit_test_cpdag_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_cpdag_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)
tests_unit_test_pc_SOURCES = tests/unit/test-pc.c
tests_unit_test_pc_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_pc_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)
tests_unit_test_pc_causal_learn_SOURCES = tests/unit/test-pc-causal-learn.c
tests_unit_test_pc_causal_learn_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_pc_causal_learn_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)
