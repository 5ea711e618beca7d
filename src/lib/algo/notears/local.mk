# The NOTEARS family (added to libalgo): linear NOTEARS, NOTEARS-ADMM, NOTEARS-MLP and
# NOTEARS-MLP-ADMM
src_lib_algo_libalgo_la_SOURCES += \
	include/fedbn/notears.h \
	include/fedbn/admm.h \
	include/fedbn/notears-mlp.h \
	src/lib/algo/notears/notears.c \
	src/lib/algo/notears/admm.c \
	src/lib/algo/notears/algo-notears.c \
	src/lib/algo/notears/algo-admm.c \
	src/lib/algo/notears/mlp-int.h \
	src/lib/algo/notears/mlp-common.c \
	src/lib/algo/notears/notears-mlp.c \
	src/lib/algo/notears/admm-mlp.c \
	src/lib/algo/notears/algo-notears-mlp.c

check_PROGRAMS += tests/unit/test-notears tests/unit/test-admm tests/unit/test-notears-mlp
TESTS += tests/unit/test-notears tests/unit/test-admm tests/unit/test-notears-mlp
