# bn: fitted networks (the parameters of a DAG from sufficient statistics summed over a
# federation), their sampling and log-likelihood, BIF and XMLBIF out, XMLBIF in (core, graph,
# data, fed); the bootstrap of a learner (algo)
# the folders below this one, whose public headers it may include (tests/check-layering.sh)
src_lib_bn_uses = core graph data fed algo
noinst_LTLIBRARIES += src/lib/bn/libbn.la
FB_LIB_PARTS += src/lib/bn/libbn.la
src_lib_bn_libbn_la_SOURCES = \
	include/fedbn/bnfit.h \
	src/lib/bn/bn-private.h \
	src/lib/bn/fit.c \
	src/lib/bn/fit-discrete.c \
	src/lib/bn/fit-gauss.c \
	src/lib/bn/fit-net.c \
	src/lib/bn/bif-write.c \
	src/lib/bn/xmlbif-read.c \
	include/fedbn/bootstrap.h \
	src/lib/bn/bootstrap.c

check_PROGRAMS += tests/unit/test-bnfit
TESTS += tests/unit/test-bnfit
EXTRA_DIST += tests/unit/test-near.h
