# graph: graph type, acyclicity, metrics (core only)
# the folders below this one, whose public headers it may include (tests/check-layering.sh)
src_lib_graph_uses = core
noinst_LTLIBRARIES += src/lib/graph/libgraph.la
FB_LIB_PARTS += src/lib/graph/libgraph.la
src_lib_graph_libgraph_la_SOURCES = \
	include/fedbn/graph.h \
	include/fedbn/metrics.h \
	src/lib/graph/graph.c \
	src/lib/graph/graph-int.h \
	src/lib/graph/graph-scan.c \
	src/lib/graph/metrics.c \
	include/fedbn/cpdag.h \
	src/lib/graph/cpdag.c \
	include/fedbn/pag.h \
	src/lib/graph/pag.c \
	include/fedbn/knowledge.h \
	src/lib/graph/knowledge.c \
	src/lib/graph/knowledge-io.c

check_PROGRAMS += tests/unit/test-graph
TESTS += tests/unit/test-graph

check_PROGRAMS += tests/unit/test-cpdag
TESTS += tests/unit/test-cpdag

check_PROGRAMS += tests/unit/test-knowledge
TESTS += tests/unit/test-knowledge
