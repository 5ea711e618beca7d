# core: errors, allocation, random streams, parameter tables, atomic files (GSL only)
# the folders below this one, whose public headers it may include (tests/check-layering.sh)
src_lib_core_uses =
noinst_LTLIBRARIES += src/lib/core/libcore.la
FB_LIB_PARTS = src/lib/core/libcore.la
src_lib_core_libcore_la_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
src_lib_core_libcore_la_SOURCES = \
	include/fedbn/core.h \
	include/fedbn/param.h \
	src/lib/core/error.c \
	src/lib/core/alloc.c \
	src/lib/core/rng.c \
	src/lib/core/strutil.c \
	src/lib/core/param.c \
	src/lib/core/atomic-file.c \
	src/lib/core/blas.c \
	src/lib/core/clock.c \
	src/lib/core/threads.c \
	src/lib/core/child.c \
	src/lib/core/kernel.c

check_PROGRAMS += tests/unit/test-kernel
TESTS += tests/unit/test-kernel
