# export: Graphviz pictures (the only code that links libcgraph and libgvc)
# the folders below this one, whose public headers it may include (tests/check-layering.sh)
src_lib_export_uses = core graph data circuit
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

# every exported SVG fits its page (xmllint; the browser's view where Chromium is installed)
TESTS += tests/export-svg.sh
EXTRA_DIST += tests/export-svg.sh
