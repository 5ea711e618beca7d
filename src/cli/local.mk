# the fedbn program: shell (the only code that links readline), commands, batch mode, pane
noinst_LTLIBRARIES += src/cli/libshell.la
src_cli_libshell_la_CFLAGS = $(AM_CFLAGS) $(READLINE_CFLAGS)
src_cli_libshell_la_SOURCES = src/cli/shell.c src/cli/shell.h

# the live pane (the only code that links ncurses)
noinst_LTLIBRARIES += src/cli/libpane.la
src_cli_libpane_la_CFLAGS = $(AM_CFLAGS) $(NCURSESW_CFLAGS)
src_cli_libpane_la_SOURCES = \
	src/cli/pane.h \
	src/cli/pane-int.h \
	src/cli/pane.c \
	src/cli/pane-keys.c \
	src/cli/pane-term.c \
	src/cli/pane-color.c \
	src/cli/pane-data.c \
	src/cli/pane-draw.c \
	src/cli/pane-draw-progress.c \
	src/cli/pane-draw-graph.c \
	src/cli/pane-draw-clients.c \
	src/cli/pane-draw-messages.c \
	src/cli/pane-draw-detail.c \
	src/cli/pane-draw-fedpc.c \
	src/cli/pane-draw-fedcircuit.c \
	src/cli/pane-plot.c

noinst_LTLIBRARIES += src/cli/libcmds.la
src_cli_libcmds_la_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
src_cli_libcmds_la_SOURCES = \
	src/cli/cmd.h \
	src/cli/cmd.c \
	src/cli/cmd-parse.c \
	src/cli/cmd-complete.c \
	src/cli/cmd-help.c \
	src/cli/cmd-table.c \
	src/cli/session.h \
	src/cli/session.c \
	src/cli/files.h \
	src/cli/files.c \
	src/cli/written.h \
	src/cli/written.c \
	src/cli/cmd-misc.c \
	src/cli/cmd-data.c \
	src/cli/cmd-gen.c \
	src/cli/cmd-sample.c \
	src/cli/cmd-fit.c \
	src/cli/cmd-bootstrap.c \
	src/cli/cmd-split.c \
	src/cli/cmd-truth.c \
	src/cli/cmd-knowledge.c \
	src/cli/graph-files.h \
	src/cli/graph-files.c \
	src/cli/cmd-graph.c \
	src/cli/cmd-export.c \
	src/cli/cmd-circuit.c \
	src/cli/batch.c \
	src/cli/history.h \
	src/cli/history.c \
	src/cli/cmd-session.c \
	src/cli/cmd-report.c \
	src/cli/page.h \
	src/cli/page.c \
	src/cli/cmd-algo.c \
	src/cli/cmd-run.c \
	src/cli/heartbeat.h \
	src/cli/heartbeat.c \
	src/cli/cmd-compare.c \
	src/cli/cmd-ledger.c \
	src/cli/ledger-view.c \
	src/cli/ledger-view.h \
	src/cli/sweep.h \
	src/cli/sweep-pool.c \
	src/cli/cmd-sweep.c \
	src/cli/cmd-plot.c \
	src/cli/report.h \
	src/cli/report.c \
	src/cli/interrupt.h \
	src/cli/interrupt.c \
	src/cli/demo.c

bin_PROGRAMS += fedbn
fedbn_SOURCES = src/cli/main.c src/cli/site.h src/cli/site.c src/cli/aslimit.h src/cli/aslimit.c
fedbn_LDADD = src/cli/libshell.la src/cli/libcmds.la src/cli/libpane.la libfedbn.la $(FB_MPI_PARTS) \
	$(READLINE_LIBS) $(NCURSESW_LIBS) $(FB_LIB_DEPS)
