# BIF networks: reader and forward sampler (added to libdata)
src_lib_data_libdata_la_SOURCES += \
	include/fedbn/bif.h \
	src/lib/data/bif.c \
	src/lib/data/bif-read.c \
	src/lib/data/bif-sample.c

check_PROGRAMS += tests/unit/test-bif
TESTS += tests/unit/test-bif
tests_unit_test_bif_SOURCES = tests/unit/test-bif.c
tests_unit_test_bif_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_bif_LDADD = libfedbn.la $(FB_LIB_DEPS) $(CMOCKA_LIBS)

if FB_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz-bif
tests_fuzz_fuzz_bif_SOURCES = tests/fuzz/fuzz-bif.c
tests_fuzz_fuzz_bif_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_bif_LDFLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
tests_fuzz_fuzz_bif_LDADD = libfedbn.la $(FB_LIB_DEPS)
endif
