# The PC family (added to libalgo): PC, its causal-learn mode, FedPC and its two ablations
src_lib_algo_libalgo_la_SOURCES += \
	include/fedbn/pc.h \
	include/fedbn/fedpc.h \
	src/lib/algo/pc/pc.c \
	src/lib/algo/pc/pc-sepsets.c \
	src/lib/algo/pc/pc-skeleton.c \
	src/lib/algo/pc/pc-orient.c \
	src/lib/algo/pc/pc-causal-learn.c \
	src/lib/algo/pc/pc-tester.c \
	src/lib/algo/pc/pc-tester.h \
	src/lib/algo/pc/pc-split.c \
	src/lib/algo/pc/pc-split.h \
	src/lib/algo/pc/pc-params.h \
	src/lib/algo/pc/algo-pc.c \
	src/lib/algo/pc/fedpc-int.h \
	src/lib/algo/pc/fedpc.c \
	src/lib/algo/pc/fedpc-orient.c \
	src/lib/algo/pc/fedpc-secure.c \
	src/lib/algo/pc/fedpc-dp.c \
	src/lib/algo/pc/fedpc-simple.c \
	src/lib/algo/pc/fedpc-text.c \
	src/lib/algo/pc/fedpc-wire.c \
	src/lib/algo/pc/fedc2sl-int.h \
	src/lib/algo/pc/fedc2sl-tables.c \
	src/lib/algo/pc/fedc2sl-bits.c \
	src/lib/algo/pc/fedc2sl.c

check_PROGRAMS += tests/unit/test-pc tests/unit/test-pc-causal-learn tests/unit/test-pc-knowledge \
	tests/unit/test-fedpc tests/unit/test-fedc2sl
TESTS += tests/unit/test-pc tests/unit/test-pc-causal-learn tests/unit/test-pc-knowledge \
	tests/unit/test-fedpc tests/unit/test-fedc2sl
