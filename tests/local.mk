# tests: the layering rule, transcripts of the real program, the man page against the table
TEST_EXTENSIONS = .sh .fbn
SH_LOG_COMPILER = $(SHELL)
FBN_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/transcript.sh
AM_TESTS_ENVIRONMENT = top_srcdir='$(top_srcdir)' top_builddir='$(top_builddir)' \
	FEDBN='$(abs_top_builddir)/fedbn'; export top_srcdir top_builddir FEDBN;

TESTS += tests/check-layering.sh
EXTRA_DIST += tests/check-layering.sh tests/transcript.sh tests/data
