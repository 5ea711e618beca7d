# tests: the layering rule, transcripts of the real program, the man page against the table
TEST_EXTENSIONS = .sh .fbn
SH_LOG_COMPILER = $(SHELL)
FBN_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/transcript.sh
AM_TESTS_ENVIRONMENT = top_srcdir='$(top_srcdir)' top_builddir='$(top_builddir)' \
	FEDBN='$(abs_top_builddir)/fedbn' \
	LSAN_OPTIONS='suppressions=$(abs_top_srcdir)/tests/lsan.supp:print_suppressions=0' \
	XDG_STATE_HOME='$(abs_top_builddir)/tests/state'; \
	export top_srcdir top_builddir FEDBN LSAN_OPTIONS XDG_STATE_HOME;
# the record of files fedbn wrote, which the tests keep out of the user's home
clean-local: clean-local-state
clean-local-state:
	rm -rf tests/state
.PHONY: clean-local-state

TESTS += tests/check-layering.sh tests/shell-tmux.sh tests/pane-tmux.sh tests/interrupt.sh \
	tests/pane-replay-tmux.sh tests/pane-keys-tmux.sh tests/pane-class-tmux.sh tests/pane-server-tmux.sh \
	tests/score-agree.sh tests/export-layout.sh tests/files.sh tests/gen-memory.sh \
	tests/results.sh tests/session-replay.sh tests/report.sh tests/command-args.sh
EXTRA_DIST += tests/check-layering.sh tests/shell-tmux.sh tests/pane-tmux.sh tests/interrupt.sh tests/lsan.supp tests/transcript.sh tests/data \
	tests/pane-replay-tmux.sh tests/pane-keys-tmux.sh tests/pane-class-tmux.sh tests/pane-server-tmux.sh \
	tests/score-agree.sh tests/tmux-lib.sh tests/export-layout.sh tests/files.sh tests/gen-memory.sh \
	tests/results.sh tests/session-replay.sh tests/scratch-lib.sh tests/report.sh \
	tests/command-args.sh

# an address-space limit: fedbn ends, or refuses in one sentence
TESTS += tests/aslimit.sh
EXTRA_DIST += tests/aslimit.sh

# endless inputs (/dev/zero, a pipe that never ends): refused or stopped, the session kept
TESTS += tests/endless-input.sh
EXTRA_DIST += tests/endless-input.sh

# source of a long file of comments: linear in its lines, silent
TESTS += tests/source-comments.sh
EXTRA_DIST += tests/source-comments.sh

# memory running out in gen and split: one sentence, the session kept
TESTS += tests/split-memory.sh
EXTRA_DIST += tests/split-memory.sh

# a killed fedbn: its child processes end with it, the next write removes its temporary files
TESTS += tests/killed.sh
EXTRA_DIST += tests/killed.sh

# sweeps (rows against single runs, jobs, resume, a failing cell, Ctrl-C) and plots
TESTS += tests/sweep.sh tests/plot.sh tests/plot-axes.sh tests/heartbeat.sh tests/bootstrap.sh
EXTRA_DIST += tests/sweep.sh tests/plot.sh tests/plot-axes.sh tests/heartbeat.sh tests/bootstrap.sh

# the first minute: the batch demo, the README's session, many pictures in one session
TESTS += tests/demo-batch.sh tests/readme.sh tests/export-many.sh
EXTRA_DIST += tests/demo-batch.sh tests/readme.sh tests/export-many.sh

# every examples/*.sh with its quick setting, in a scratch folder
TESTS += tests/examples.sh
EXTRA_DIST += tests/examples.sh

# circuit pictures: title, caption, legend, leaves that read as distributions, a slide's width
TESTS += tests/export-circuit.sh
EXTRA_DIST += tests/export-circuit.sh

check_PROGRAMS += tests/unit/test-cmd
TESTS += tests/unit/test-cmd
tests_unit_test_cmd_LDADD = src/cli/libcmds.la src/cli/libpane.la libfedbn.la $(FB_LIB_DEPS) \
	$(NCURSESW_LIBS) $(CMOCKA_LIBS)

# transcripts of the real program
TRANSCRIPTS = \
	tests/transcripts/basics.fbn \
	tests/transcripts/needs.fbn \
	tests/transcripts/export.fbn \
	tests/transcripts/algo.fbn \
	tests/transcripts/sample.fbn \
	tests/transcripts/fit.fbn \
	tests/transcripts/ledger.fbn \
	tests/transcripts/data.fbn \
	tests/transcripts/standardize.fbn \
	tests/transcripts/bail.fbn \
	tests/transcripts/bail-stdin.fbn \
	tests/transcripts/no-bail.fbn \
	tests/transcripts/rescore.fbn \
	tests/transcripts/compare.fbn \
	tests/transcripts/threshold.fbn \
	tests/transcripts/keys.fbn \
	tests/transcripts/files.fbn \
	tests/transcripts/names.fbn \
	tests/transcripts/ges.fbn \
	tests/transcripts/sim.fbn \
	tests/transcripts/split-by.fbn \
	tests/transcripts/split-order.fbn \
	tests/transcripts/knowledge.fbn \
	tests/transcripts/kci.fbn \
	tests/transcripts/hetero.fbn \
	tests/transcripts/circuit.fbn \
	tests/transcripts/circuit-query.fbn \
	tests/transcripts/fedcircuit.fbn \
	tests/transcripts/mlp.fbn \
	tests/transcripts/feddag.fbn \
	tests/transcripts/sweep.fbn \
	tests/transcripts/sweep-circuit.fbn \
	tests/transcripts/watch.fbn \
	tests/transcripts/session-save.fbn \
	tests/transcripts/columns.fbn \
	tests/transcripts/fci.fbn \
	tests/transcripts/graphfmt.fbn \
	tests/transcripts/secure.fbn \
	tests/transcripts/fedc2sl.fbn
TESTS += $(TRANSCRIPTS)
# outputs that differ in OpenBLAS's AVX2 kernels and its generic one (see tests/transcript.sh)
EXTRA_DIST += tests/transcripts/mlp.haswell.out tests/transcripts/rescore.haswell.out \
	tests/transcripts/threshold.haswell.out tests/transcripts/mlp.prescott.out \
	tests/transcripts/rescore.prescott.out tests/transcripts/threshold.prescott.out \
	tests/transcripts/sweep.prescott.out
EXTRA_DIST += $(TRANSCRIPTS) $(TRANSCRIPTS:.fbn=.out) tests/fuzz

# the unit tests and transcripts, which setup.sh check-kernels runs under other BLAS kernels
print-kernel-tests:
	@for t in $(TESTS); do case $$t in tests/unit/* | *.fbn) echo $$t ;; esac; done
.PHONY: print-kernel-tests

# the layering check itself, on scratch trees it must pass and reject
TESTS += tests/check-layering-test.sh
EXTRA_DIST += tests/check-layering-test.sh

# the manual's command and algorithm lists are the ones the tables generate
TESTS += tests/check-man.sh
EXTRA_DIST += tests/check-man.sh

# every example command line of the man page renders as written (groff), as in the README
TESTS += tests/man-examples.sh
EXTRA_DIST += tests/man-examples.sh

if FB_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz-cmdline
tests_fuzz_fuzz_cmdline_SOURCES = tests/fuzz/fuzz-cmdline.c
tests_fuzz_fuzz_cmdline_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_cmdline_LDFLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_cmdline_LDADD = src/cli/libcmds.la src/cli/libpane.la libfedbn.la $(FB_LIB_DEPS) \
	$(NCURSESW_LIBS)
# whole sessions in a scratch folder (the harness defines the run loop's Ctrl-C hooks)
noinst_PROGRAMS += tests/fuzz/fuzz-commands
tests_fuzz_fuzz_commands_SOURCES = tests/fuzz/fuzz-commands.c
tests_fuzz_fuzz_commands_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_commands_LDFLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_commands_LDADD = src/cli/libcmds.la src/cli/libpane.la libfedbn.la \
	$(FB_LIB_DEPS) $(NCURSESW_LIBS)
# a saved session's words read back as the same commands and bytes
noinst_PROGRAMS += tests/fuzz/fuzz-history
tests_fuzz_fuzz_history_SOURCES = tests/fuzz/fuzz-history.c
tests_fuzz_fuzz_history_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_history_LDFLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_history_LDADD = src/cli/libcmds.la src/cli/libpane.la libfedbn.la \
	$(FB_LIB_DEPS) $(NCURSESW_LIBS)
endif

# a saved session runs no command hidden in a word (new lines in quoted arguments)
TESTS += tests/session-hidden.sh
EXTRA_DIST += tests/session-hidden.sh

# the same protocol over socket pairs to forked client processes
check_PROGRAMS += tests/unit/test-link
TESTS += tests/unit/test-link
tests_unit_test_link_SOURCES = tests/unit/test-link.c tests/mpi/compare.h tests/mpi/compare.c
tests_unit_test_link_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_link_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)

# a real federation over MPI on this machine (skipped where Open MPI or mpirun is absent)
TESTS += tests/mpi.sh
EXTRA_DIST += tests/mpi.sh
if FB_MPI
check_PROGRAMS += tests/mpi/test-mpi
tests_mpi_test_mpi_SOURCES = tests/mpi/test-mpi.c tests/mpi/compare.h tests/mpi/compare.c
tests_mpi_test_mpi_LDADD = libfedbn.la $(FB_MPI_PARTS) $(FB_LIB_DEPS)
endif
