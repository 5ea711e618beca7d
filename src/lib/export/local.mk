# export: Graphviz pictures (the only code that links libcgraph and libgvc)
noinst_LTLIBRARIES += src/lib/export/libexport.la
FB_LIB_PARTS += src/lib/export/libexport.la
src_lib_export_libexport_la_CFLAGS = $(AM_CFLAGS) $(GVC_CFLAGS) $(CGRAPH_CFLAGS)
src_lib_export_libexport_la_SOURCES = \
	include/fedbn/export.h \
	src/lib/export/graphviz.c \
	src/lib/export/gv-int.h \
	src/lib/export/gv-layout.c \
	src/lib/export/gv-place.c \
	src/lib/export/gv-circuit.c

check_PROGRAMS += tests/unit/test-export
TESTS += tests/unit/test-export
tests_unit_test_export_SOURCES = tests/unit/test-export.c
tests_unit_test_export_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CGRAPH_CFLAGS)
tests_unit_test_export_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)
