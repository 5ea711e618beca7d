# MCSL and FedDAG (added to libalgo): the masked learner and its two federated forms
src_lib_algo_libalgo_la_SOURCES += \
	include/fedbn/mcsl.h \
	include/fedbn/feddag.h \
	src/lib/algo/feddag/mcsl.c \
	src/lib/algo/feddag/algo-feddag.c

check_PROGRAMS += tests/unit/test-feddag
TESTS += tests/unit/test-feddag
