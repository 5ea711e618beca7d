# benchmarks: programs that print figures (make bench); never part of the test suite
EXTRA_PROGRAMS += bench/bench-csv
bench_bench_csv_SOURCES = bench/bench-csv.c bench/bench-common.c bench/bench-common.h
bench_bench_csv_CPPFLAGS = $(AM_CPPFLAGS) -DFB_TOP_SRCDIR='"$(abs_top_srcdir)"'
bench_bench_csv_LDADD = libfedbn.la $(FB_LIB_DEPS)
EXTRA_DIST += bench/csv-reference.py bench/mlp-reference-optimiser.py

FB_BENCHES = bench/bench-csv
include bench/local-notears.mk
include bench/local-pc.mk
include bench/local-admm.mk
include bench/local-fedpc.mk
include bench/local-circuit.mk
include bench/local-ges.mk
include bench/local-nn.mk
include bench/local-mlp.mk
include bench/local-feddag.mk
include bench/local-mpi.mk
include bench/local-kci.mk
include bench/local-gp.mk
include bench/local-fci.mk
include bench/local-threads.mk
CLEANFILES += $(FB_BENCHES)
EXTRA_DIST += bench/startup.sh

# build and run every benchmark (they find ../shared/data beside the source tree), then the
# start-up time; FB_BENCH_HUGE=0 leaves out PC and FedPC at d = 10,000 (minutes; FedPC peaks
# at 4.1 GB), FB_BENCH_HUGE=2 adds PC and FedPC at d = 20,000, n = 3,000 (bench-fedpc)
FB_BENCH_HUGE ?= 1
bench: $(FB_BENCHES) bench/bench-admm fedbn $(FB_MPI_BENCH)
	@for b in $(FB_BENCHES); do FB_BENCH_HUGE=$(FB_BENCH_HUGE) top_srcdir=$(abs_top_srcdir) ./$$b || exit 1; done
	@echo "notears-admm, OWL-QN W step (the default):"
	@top_srcdir=$(abs_top_srcdir) ./bench/bench-admm --owlqn
	@echo "notears-admm, NLopt's L-BFGS on the subgradient W step (solver=subgradient):"
	@top_srcdir=$(abs_top_srcdir) ./bench/bench-admm
	@echo "notears-admm, L-BFGS-B on the subgradient W step (the reference's solver, solver=lbfgsb):"
	@top_srcdir=$(abs_top_srcdir) ./bench/bench-admm --lbfgsb
	@echo "notears-admm, the settle rule against the paper's fixed schedule (10 seeds):"
	@top_srcdir=$(abs_top_srcdir) ./bench/bench-admm --settle
	@echo "notears-mlp with solver=owlqn:"
	@top_srcdir=$(abs_top_srcdir) ./bench/bench-mlp --owlqn N_d10_n256_s1:1 M_d10_n200_mlp_s1:1 M_d10_n200_mlp_s2:1 M_d10_n200_mlp_s3:1
	@FEDBN=./fedbn $(SHELL) $(srcdir)/bench/startup.sh
	@echo "sweep: 600 cells of notears-admm on 2 processes, and the machinery's share:"
	@FEDBN=./fedbn $(SHELL) $(srcdir)/examples/bench-sweep.sh
	@if test -n "$(FB_MPI_BENCH)" && command -v mpirun >/dev/null 2>&1; then \
		echo "over MPI on this machine, against the same run in-process:"; \
		mpirun --oversubscribe --allow-run-as-root -np 9 ./bench/bench-mpi admm && \
		mpirun --oversubscribe --allow-run-as-root -np 11 ./bench/bench-mpi fedpc; \
	fi
.PHONY: bench
