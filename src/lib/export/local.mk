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
tests_unit_test_export_CFLAGS = $(AM_CFLAGS) $(CGRAPH_CFLAGS)
