# fed: partitions of a dataset over clients (core, data)
# the folders below this one, whose public headers it may include (tests/check-layering.sh)
src_lib_fed_uses = core graph data
noinst_LTLIBRARIES += src/lib/fed/libfed.la
FB_LIB_PARTS += src/lib/fed/libfed.la
src_lib_fed_libfed_la_SOURCES = \
	include/fedbn/partition.h \
	include/fedbn/fed.h \
	src/lib/fed/partition.c \
	src/lib/fed/message.c \
	src/lib/fed/federation.c \
	src/lib/fed/sum.c \
	include/fedbn/secagg.h \
	include/fedbn/secure.h \
	src/lib/fed/secure-int.h \
	src/lib/fed/secagg.c \
	src/lib/fed/secure.c \
	src/lib/fed/secure-server.c \
	include/fedbn/wire.h \
	src/lib/fed/wire.c \
	include/fedbn/fedmpi.h \
	src/lib/fed/mpi-options.c \
	include/fedbn/sites.h \
	src/lib/fed/sites.c \
	include/fedbn/link.h \
	src/lib/fed/link-local.c \
	include/fedbn/proto.h \
	src/lib/fed/protocol-int.h \
	src/lib/fed/protocol.c \
	src/lib/fed/protocol-connect.c \
	src/lib/fed/protocol-server.c \
	src/lib/fed/protocol-client.c \
	src/lib/fed/knowledge-wire.c
# secure sums: the only code that includes sodium.h
src_lib_fed_libfed_la_CFLAGS = $(AM_CFLAGS) $(SODIUM_CFLAGS)

# the MPI link: the only code that includes mpi.h and links Open MPI; without Open MPI the
# same entries say so
noinst_LTLIBRARIES += src/lib/fed/libfedmpi.la
# (libfedbn again after it: the link is started there and the protocol runs over it)
FB_MPI_PARTS = src/lib/fed/libfedmpi.la libfedbn.la $(MPI_LIBS)
if FB_MPI
src_lib_fed_libfedmpi_la_SOURCES = src/lib/fed/link-mpi.c
src_lib_fed_libfedmpi_la_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
else
src_lib_fed_libfedmpi_la_SOURCES = src/lib/fed/link-mpi-none.c
endif

check_PROGRAMS += tests/unit/test-partition
TESTS += tests/unit/test-partition

check_PROGRAMS += tests/unit/test-sites
TESTS += tests/unit/test-sites

check_PROGRAMS += tests/unit/test-wire
TESTS += tests/unit/test-wire

check_PROGRAMS += tests/unit/test-secure
TESTS += tests/unit/test-secure
tests_unit_test_secure_SOURCES = tests/unit/test-secure.c tests/mpi/compare.h tests/mpi/compare.c

if FB_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz-wire
tests_fuzz_fuzz_wire_SOURCES = tests/fuzz/fuzz-wire.c
tests_fuzz_fuzz_wire_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined
tests_fuzz_fuzz_wire_LDFLAGS = -fsanitize=fuzzer,address,undefined
tests_fuzz_fuzz_wire_LDADD = libfedbn.la $(FB_LIB_DEPS)
endif
