# PC and the CPDAG tools (added to libalgo and libgraph)
src_lib_graph_libgraph_la_SOURCES += \
	include/fedbn/cpdag.h \
	src/lib/graph/cpdag.c

check_PROGRAMS += tests/unit/test-cpdag
TESTS += tests/unit/test-cpdag
tests_unit_test_cpdag_SOURCES = tests/unit/test-cpdag.c
tests_unit_test_cpdag_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_cpdag_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)
