# bench-mpi: a federation over MPI against the same run in-process (with Open MPI only)
if FB_MPI
EXTRA_PROGRAMS += bench/bench-mpi
bench_bench_mpi_SOURCES = bench/bench-mpi.c
bench_bench_mpi_LDADD = libfedbn.la $(FB_MPI_PARTS) $(FB_LIB_DEPS)
CLEANFILES += bench/bench-mpi
FB_MPI_BENCH = bench/bench-mpi
endif
