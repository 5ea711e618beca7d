# The FCI family (added to libalgo): FCI over PC's skeleton, its PAGs' rules
src_lib_algo_libalgo_la_SOURCES += \
	include/fedbn/fci.h \
	src/lib/algo/fci/fci-int.h \
	src/lib/algo/fci/fci-graph.h \
	src/lib/algo/fci/fci-graph.c \
	src/lib/algo/fci/fci-rules.c \
	src/lib/algo/fci/fci-rules2.c \
	src/lib/algo/fci/fci-pdsep.c \
	src/lib/algo/fci/fci.c \
	src/lib/algo/fci/fci-truth.c \
	src/lib/algo/fci/algo-fci.c \
	src/lib/algo/fci/fedfci-int.h \
	src/lib/algo/fci/fedfci.c \
	src/lib/algo/fci/fedfci-client.c \
	src/lib/algo/fci/fedfci-pooled.c

check_PROGRAMS += tests/unit/test-fci tests/unit/test-fedfci
TESTS += tests/unit/test-fci tests/unit/test-fedfci
EXTRA_DIST += tests/unit/test-slurp.h
