/* bench-fedpc: wall time of FedPC (fisher-z, alpha 0.01, 10 clients of contiguous equal row
 * blocks) round by round on the shared synthetic data A_d50_n150_s1 and A_d100_n300_s1 (the
 * FedPC authors' MATLAB code takes about 23 s and 105 s on them) and on a simulated
 * linear-Gaussian sample with d = 1000, n = 5000 and 1000 edges; with the tests the clients
 * ran, the bytes exchanged and the FedPC paper's SHD (the CPDAG extended to a DAG, then
 * extra + missing + reversed).  With FB_BENCH_HUGE set (not empty, not 0;
 * `make bench` sets it), also d = 10,000, n = 10,000 over 10 clients (corr=auto: the
 * clients' correlations on demand), and with FB_BENCH_HUGE=2 PC and FedPC (10 clients) at
 * d = 20,000, n = 3,000: each of those rows runs in a child process, which generates its
 * data, so that its wall time, processor time and peak memory (with bytes per variable and
 * per true edge) are the row's alone (those rows come first, while the bench process that
 * the child copies is small).
 *
 * Usage: bench-fedpc [SRCDIR [DATADIR]] [threads=T]
 * DATADIR defaults to SRCDIR/../shared/data, SRCDIR to the configured source folder; T (1)
 * clients are computed at once (PC: T threads).  Set OPENBLAS_NUM_THREADS=1 to measure one
 * thread. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-common.h"
#include "fedbn/cpdag.h"
#include "fedbn/csv.h"
#include "fedbn/fedpc.h"
#include "fedbn/sim.h"

#ifndef FB_TOP_SRCDIR
#define FB_TOP_SRCDIR "."
#endif

/* A run of a (fedpc over part, or pc on ds when part is NULL), built as fb_run_alloc does
 * (the bench needs no registry). */
static fb_run *start_algo(const fb_algo *a, const fb_dataset *ds, const fb_partition *part,
                          size_t threads, fb_error *err)
{
	fb_run *run = fb_xcalloc(1, sizeof *run);

	run->algo = a;
	run->name = fb_xstrdup(a->name);
	run->data = ds;
	run->part = part;
	run->figures = a->figures;
	while (run->figures[run->trace.nfig] != NULL)
		run->trace.nfig++;
	fb_fed_options_init(&run->fedopt);
	run->fedopt.threads = threads;
	if (fb_params_init(&run->params, a->params, err) != FB_OK ||
	    fb_params_set_word(&run->params, "test=fisher-z", a->name, err) != FB_OK ||
	    (part != NULL && (run->fed = fb_fed_alloc(part, &run->fedopt, err)) == NULL) ||
	    a->create(run, err) != FB_OK) {
		fb_run_free(run);
		return NULL;
	}
	return run;
}

/* A fedpc run over part. */
static fb_run *start(const fb_dataset *ds, const fb_partition *part, size_t threads,
                     fb_error *err)
{
	return start_algo(&fb_algo_fedpc, ds, part, threads, err);
}

/* The FedPC paper's SHD of g against truth. */
static size_t paper_shd(const fb_graph *g, const fb_graph *truth)
{
	fb_graph *dag = fb_cpdag_to_dag(g, NULL);
	fb_metrics m = { 0 };

	fb_metrics_compute(dag, truth, &m, NULL);
	fb_graph_free(dag);
	return m.shd;
}

/* Print one round's line. */
static void print_round(const fb_run *run)
{
	const fb_trace_rec *r = fb_run_last(run);

	printf("  round %2zu  %8.3f s  layer %3.0f  edges %6.0f  removed %7.0f  tests %9.0f  "
	       "triples %5.0f  up %9zu B  down %9zu B\n", r->round, r->seconds, r->fig[0],
	       r->fig[1], r->fig[2], r->fig[3], r->fig[4], r->bytes_up, r->bytes_down);
}

/* Run FedPC on ds over 10 contiguous clients and print every round, the total and the SHD,
 * and for d >= 1000 the process's peak memory beside target. */
static void bench_one(const char *what, const fb_dataset *ds, const fb_graph *truth,
                      size_t threads, const char *target)
{
	fb_split_options so;
	fb_error err = { "" };
	fb_partition *part;
	fb_run *run;
	fb_graph *g;
	double t0 = bench_now(), c0 = bench_cpu_now();
	struct rusage ru;

	fb_split_options_init(&so);
	so.shuffle = 0;
	so.view = true;
	if ((part = fb_split(ds, FB_SPLIT_HORIZONTAL, 10, &so, &err)) == NULL ||
	    (run = start(ds, part, threads, &err)) == NULL) {
		printf("%s: %s\n", what, err.msg);
		fb_partition_free(part);
		return;
	}
	printf("%s: d %zu, n %zu, 10 clients, %zu thread(s)\n", what, ds->d, ds->n, threads);
	while (!fb_run_done(run)) {
		if (fb_run_step(run, &err) != FB_OK) {
			printf("%s: %s\n", what, err.msg);
			break;
		}
		print_round(run);
	}
	if ((g = fb_run_result(run, &err)) != NULL)
		printf("%s: total %.3f s (rounds %.3f s, CPU %.3f s), %zu rounds, %zu edges, "
		       "SHD %zu\n", what, bench_now() - t0, run->seconds, bench_cpu_now() - c0,
		       fb_run_rounds(run), fb_graph_n_edges(g), paper_shd(g, truth));
	getrusage(RUSAGE_SELF, &ru);
	if (ds->d >= 1000)
		printf("%s: peak memory of the process %.1f MB (target: %s)\n", what,
		       (double)ru.ru_maxrss / 1024.0, target);
	fb_graph_free(g);
	fb_run_free(run);
	fb_partition_free(part);
}

/* The shared synthetic folders. */
static void bench_shared(const char *dir, size_t threads)
{
	static const char *const tags[] = { "A_d50_n150_s1", "A_d100_n300_s1" };

	for (size_t t = 0; t < 2; t++) {
		fb_dataset *ds;
		fb_graph *truth;

		if (bench_load_synth(dir, tags[t], &ds, &truth) != FB_OK)
			continue;
		bench_one(tags[t], ds, truth, threads, NULL);
		fb_dataset_free(ds);
		fb_graph_free(truth);
	}
}

/* A simulated linear-Gaussian sample of d variables, n rows and d edges (seed 1). */
static void bench_large(size_t d, size_t n, size_t threads, const char *target)
{
	fb_sim_options so;
	fb_dataset *ds;
	fb_graph *truth;
	fb_error err = { "" };
	char what[64];

	fb_sim_options_init(&so);
	so.d = d;
	so.edges = d;
	so.n = n;
	so.seed = 1;
	if (fb_sim_generate(&so, &ds, &truth, &err) != FB_OK) {
		printf("simulation: %s\n", err.msg);
		return;
	}
	snprintf(what, sizeof what, "sim_d%zu_n%zu", d, n);
	bench_one(what, ds, truth, threads, target);
	fb_dataset_free(ds);
	fb_graph_free(truth);
}

/* The child of a row: a simulated sample of d variables, n rows and d edges (seed 1), then
 * PC on it (k = 0) or FedPC over k contiguous clients, step by step; 0 when it finished. */
static int row_child(const fb_algo *a, size_t d, size_t n, size_t k, size_t threads)
{
	fb_sim_options so;
	fb_split_options sp;
	fb_dataset *ds;
	fb_graph *truth, *g;
	fb_partition *part = NULL;
	fb_error err = { "" };
	fb_run *run;

	fb_sim_options_init(&so);
	so.d = so.edges = d;
	so.n = n;
	so.seed = 1;
	fb_split_options_init(&sp);
	sp.shuffle = 0;
	sp.view = true; /* the clients read their rows in place: ds outlives the split */
	if (fb_sim_generate(&so, &ds, &truth, &err) != FB_OK ||
	    (k > 0 && (part = fb_split(ds, FB_SPLIT_HORIZONTAL, k, &sp, &err)) == NULL) ||
	    (run = start_algo(a, ds, part, threads, &err)) == NULL) {
		printf("  %s\n", err.msg);
		return 1;
	}
	while (!fb_run_done(run))
		if (fb_run_step(run, &err) != FB_OK) {
			printf("  %s\n", err.msg);
			return 1;
		}
	if ((g = fb_run_result(run, &err)) == NULL) {
		printf("  %s\n", err.msg);
		return 1;
	}
	printf("  %zu rounds, %zu edges, SHD %zu (true edges %zu)\n", fb_run_rounds(run),
	       fb_graph_n_edges(g), paper_shd(g, truth), fb_graph_n_edges(truth));
	fflush(stdout);
	return 0;
}

/* One row in a child process: its wall time, processor time and peak memory, the memory
 * also per variable and per true edge (d of them), beside target. */
static void bench_row(const fb_algo *a, size_t d, size_t n, size_t k, size_t threads,
                      const char *target)
{
	double t0 = bench_now(), peak;
	struct rusage ru;
	int status = 0;
	pid_t pid;

	printf("%s_d%zu_n%zu%s: %s, %zu thread(s)\n", a->name, d, n, k > 0 ? "_k10" : "",
	       k > 0 ? "10 contiguous clients" : "one dataset", threads);
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(row_child(a, d, n, k, threads));
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) {
		printf("  could not run the row in a child process\n");
		return;
	}
	peak = (double)ru.ru_maxrss * 1024.0;
	printf("%s_d%zu_n%zu%s: %s wall %.1f s, processor %.1f s, peak memory %.0f MB "
	       "(%.0f bytes per variable, %.0f per true edge) (target: %s)\n", a->name, d, n,
	       k > 0 ? "_k10" : "", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "finished," :
	       "FAILED,", bench_now() - t0, (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, peak / 1048576.0,
	       peak / (double)d, peak / (double)d, target);
}

/* FB_BENCH_HUGE's level: 0 unset, else its number (1 when not a number). */
static int huge_level(void)
{
	const char *v = getenv("FB_BENCH_HUGE");

	if (!bench_huge())
		return 0;
	return atoi(v) > 1 ? atoi(v) : 1;
}

/* Run the benchmarks. */
int main(int argc, char **argv)
{
	const char *paths[2] = { FB_TOP_SRCDIR, NULL }, *src, *data;
	size_t threads = 1, np = 0;
	char dir[4096], cpu[256];

	fb_gsl_install_handler();
	for (int a = 1; a < argc; a++) {
		if (strncmp(argv[a], "threads=", 8) == 0)
			threads = (size_t)strtoul(argv[a] + 8, NULL, 10);
		else if (np < 2)
			paths[np++] = argv[a];
	}
	src = paths[0];
	data = paths[1];
	if (data != NULL)
		snprintf(dir, sizeof dir, "%s", data);
	else
		snprintf(dir, sizeof dir, "%s/../shared/data", src);
	printf("FedPC, fisher-z, alpha 0.01, 10 contiguous clients; %s\n",
	       bench_processor(cpu, sizeof cpu));
	threads = threads > 0 ? threads : 1;
	/* first, while this process is small: a child's peak counts the pages it inherits */
	if (huge_level() >= 1)
		bench_row(&fb_algo_fedpc, 10000, 10000, 10, threads, "under 2 GB");
	else
		printf("fedpc_d10000_n10000_k10: skipped (set FB_BENCH_HUGE=1 to run it) (target "
		       "under 2 GB)\n");
	if (huge_level() >= 2) {
		bench_row(&fb_algo_pc, 20000, 3000, 0, threads, "under 16 GB and 5 min");
		bench_row(&fb_algo_fedpc, 20000, 3000, 10, threads, "under 16 GB and 5 min");
	} else {
		printf("pc_d20000_n3000 and fedpc_d20000_n3000_k10: skipped (set FB_BENCH_HUGE=2 "
		       "to run them) (target under 16 GB and 5 min each)\n");
	}
	bench_shared(dir, threads);
	bench_large(1000, 5000, threads, "under 2 s and 300 MB");
	return 0;
}
