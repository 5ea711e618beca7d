# data: datasets, CSV in and out (libcsv), graph CSV, graph file formats (graphfmt), simulators, BIF networks (reader and
# forward sampler) (core, graph)
# the folders below this one, whose public headers it may include (tests/check-layering.sh)
src_lib_data_uses = core graph
noinst_LTLIBRARIES += src/lib/data/libdata.la
FB_LIB_PARTS += src/lib/data/libdata.la
src_lib_data_libdata_la_SOURCES = \
	include/fedbn/dataset.h \
	include/fedbn/csv.h \
	include/fedbn/sim.h \
	include/fedbn/table.h \
	src/lib/data/dataset.c \
	src/lib/data/dataset-part.c \
	src/lib/data/csv-private.h \
	src/lib/data/csv-scan.c \
	src/lib/data/csv-read.c \
	src/lib/data/csv-fast.c \
	src/lib/data/csv-write.c \
	src/lib/data/codes.c \
	src/lib/data/table.c \
	src/lib/data/graph-csv.c \
	include/fedbn/graphfmt.h \
	src/lib/data/graphfmt-private.h \
	src/lib/data/graphfmt.c \
	src/lib/data/graphfmt-text.c \
	src/lib/data/graphfmt-tree.c \
	src/lib/data/graphfmt-dot.c \
	src/lib/data/graphfmt-write.c \
	src/lib/data/sim.c \
	src/lib/data/sim-mech.c \
	include/fedbn/bif.h \
	src/lib/data/bif.c \
	src/lib/data/bif-read.c \
	src/lib/data/bif-sample.c

check_PROGRAMS += tests/unit/test-csv tests/unit/test-sim tests/unit/test-bif tests/unit/test-graphfmt
TESTS += tests/unit/test-csv tests/unit/test-sim tests/unit/test-bif tests/unit/test-graphfmt

if FB_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz-csv
tests_fuzz_fuzz_csv_SOURCES = tests/fuzz/fuzz-csv.c
tests_fuzz_fuzz_csv_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_csv_LDFLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_csv_LDADD = libfedbn.la $(FB_LIB_DEPS)
noinst_PROGRAMS += tests/fuzz/fuzz-bif
tests_fuzz_fuzz_bif_SOURCES = tests/fuzz/fuzz-bif.c
tests_fuzz_fuzz_bif_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_bif_LDFLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_bif_LDADD = libfedbn.la $(FB_LIB_DEPS)
noinst_PROGRAMS += tests/fuzz/fuzz-graphfmt
tests_fuzz_fuzz_graphfmt_SOURCES = tests/fuzz/fuzz-graphfmt.c
tests_fuzz_fuzz_graphfmt_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_graphfmt_LDFLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_graphfmt_LDADD = libfedbn.la $(FB_LIB_DEPS)
endif
