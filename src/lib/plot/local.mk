# plot: line plots drawn by gnuplot, a child process fed through a socket (the only code that
# talks to the plotting tool; core only)
# the folders below this one, whose public headers it may include (tests/check-layering.sh)
src_lib_plot_uses = core
noinst_LTLIBRARIES += src/lib/plot/libplot.la
FB_LIB_PARTS += src/lib/plot/libplot.la
src_lib_plot_libplot_la_SOURCES = \
	include/fedbn/plot.h \
	src/lib/plot/plot.c \
	src/lib/plot/gnuplot.c
