# experiment: grids of variables a script runs over, ${NAME} substitution, summaries of
# result tables (mean and standard error per group), a sweep's rows and their resumption
# (core, data)
# the folders below this one, whose public headers it may include (tests/check-layering.sh)
src_lib_experiment_uses = core data
noinst_LTLIBRARIES += src/lib/experiment/libexperiment.la
FB_LIB_PARTS += src/lib/experiment/libexperiment.la
src_lib_experiment_libexperiment_la_SOURCES = \
	include/fedbn/experiment.h \
	src/lib/experiment/grid.c \
	src/lib/experiment/summary.c \
	src/lib/experiment/sweep-rows.c

check_PROGRAMS += tests/unit/test-experiment
TESTS += tests/unit/test-experiment
