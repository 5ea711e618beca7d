# optim: the acyclicity function h(W), the L-BFGS and OWL-QN adapters (GSL, NLopt, liblbfgs, L-BFGS-B), Adam
# the folders below this one, whose public headers it may include (tests/check-layering.sh)
src_lib_optim_uses = core
noinst_LTLIBRARIES += src/lib/optim/liboptim.la
FB_LIB_PARTS += src/lib/optim/liboptim.la
src_lib_optim_liboptim_la_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) $(NLOPT_CFLAGS) $(LBFGS_CFLAGS)
src_lib_optim_liboptim_la_SOURCES = \
	include/fedbn/optim.h \
	src/lib/optim/dag-h.c \
	src/lib/optim/lbfgs.c \
	src/lib/optim/owlqn.c \
	src/lib/optim/lbfgs-scipy.c \
	src/lib/optim/lbfgsb.c \
	src/lib/optim/adam.c

check_PROGRAMS += tests/unit/test-optim
TESTS += tests/unit/test-optim
check_PROGRAMS += tests/unit/test-lbfgs-scipy
TESTS += tests/unit/test-lbfgs-scipy
