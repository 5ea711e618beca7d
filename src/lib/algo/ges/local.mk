# GES (added to libalgo); its local scores live in stats
src_lib_algo_libalgo_la_SOURCES += \
	include/fedbn/ges.h \
	src/lib/algo/ges/ges.c \
	src/lib/algo/ges/algo-ges.c

check_PROGRAMS += tests/unit/test-ges
TESTS += tests/unit/test-ges
