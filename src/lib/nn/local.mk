# nn: dense and locally-connected layers, activations, the per-variable MLP stack (core, CBLAS)
# the folders below this one, whose public headers it may include (tests/check-layering.sh)
src_lib_nn_uses = core
noinst_LTLIBRARIES += src/lib/nn/libnn.la
FB_LIB_PARTS += src/lib/nn/libnn.la
src_lib_nn_libnn_la_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
src_lib_nn_libnn_la_SOURCES = \
	include/fedbn/nn.h \
	src/lib/nn/layer.c \
	src/lib/nn/stack.c \
	src/lib/nn/one-output.c \
	src/lib/nn/one-fused.c \
	src/lib/nn/leaky-stack.c \
	src/lib/nn/nn-int.h \
	src/lib/nn/init.c

check_PROGRAMS += tests/unit/test-nn
TESTS += tests/unit/test-nn
