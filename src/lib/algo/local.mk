# algo: the shared machinery of every learner (GSL and optim only; no terminal, no Graphviz):
# runs and traces, the registry, the baseline combinators, post-processing, the client loop.
# Each family folder below adds its learners to libalgo through its own local.mk.
# the folders below this one, whose public headers it may include (tests/check-layering.sh)
src_lib_algo_uses = core graph data stats circuit optim nn fed
noinst_LTLIBRARIES += src/lib/algo/libalgo.la
FB_LIB_PARTS += src/lib/algo/libalgo.la
src_lib_algo_libalgo_la_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
src_lib_algo_libalgo_la_SOURCES = \
	include/fedbn/algo.h \
	src/lib/algo/run.c \
	src/lib/algo/registry.c \
	src/lib/algo/combine.h \
	src/lib/algo/combine.c \
	src/lib/algo/fit-memo.c \
	include/fedbn/honour.h \
	src/lib/algo/postprocess.c \
	include/fedbn/serve.h \
	src/lib/algo/serve.c

check_PROGRAMS += tests/unit/test-fed
TESTS += tests/unit/test-fed

check_PROGRAMS += tests/unit/test-knowledge-honoured
TESTS += tests/unit/test-knowledge-honoured
tests_unit_test_knowledge_honoured_SOURCES = tests/unit/test-knowledge-honoured.c \
	tests/unit/knowledge-data.h tests/unit/knowledge-data.c

check_PROGRAMS += tests/unit/test-knowledge-inside
TESTS += tests/unit/test-knowledge-inside
tests_unit_test_knowledge_inside_SOURCES = tests/unit/test-knowledge-inside.c \
	tests/unit/knowledge-data.h tests/unit/knowledge-data.c
