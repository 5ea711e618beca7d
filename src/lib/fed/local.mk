# fed: partitions of a dataset over clients (core, data)
noinst_LTLIBRARIES += src/lib/fed/libfed.la
FB_LIB_PARTS += src/lib/fed/libfed.la
src_lib_fed_libfed_la_SOURCES = \
	include/fedbn/partition.h \
	include/fedbn/fed.h \
	src/lib/fed/partition.c \
	src/lib/fed/message.c \
	src/lib/fed/federation.c

check_PROGRAMS += tests/unit/test-partition
TESTS += tests/unit/test-partition
tests_unit_test_partition_SOURCES = tests/unit/test-partition.c
tests_unit_test_partition_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_partition_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)
