/* bench-fedpc: wall time of FedPC (fisher-z, alpha 0.01, 10 clients of contiguous equal row
 * blocks) round by round on the shared synthetic data A_d50_n150_s1 and A_d100_n300_s1 (the
 * FedPC authors' MATLAB code takes about 23 s and 105 s on them) and on a simulated
 * linear-Gaussian sample with d = 1000, n = 5000 and 1000 edges; with the tests the clients
 * ran, the bytes exchanged and the FedPC paper's SHD (the CPDAG extended to a DAG, then
 * extra + missing + reversed).  With FB_BENCH_HUGE set (not empty, not 0;
 * `make bench` sets it), also d = 10,000, n = 10,000 with
 * the process's peak memory.
 *
 * Usage: bench-fedpc [SRCDIR [DATADIR]] [threads=T]
 * DATADIR defaults to SRCDIR/../shared/data, SRCDIR to the configured source folder; T (1)
 * clients are computed at once.  Set OPENBLAS_NUM_THREADS=1 to measure one thread. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench-common.h"
#include "fedbn/cpdag.h"
#include "fedbn/csv.h"
#include "fedbn/fedpc.h"
#include "fedbn/sim.h"

#ifndef FB_TOP_SRCDIR
#define FB_TOP_SRCDIR "."
#endif

/* A fedpc run over part, built as fb_run_alloc does (the bench needs no registry). */
static fb_run *start(const fb_dataset *ds, const fb_partition *part, size_t threads,
                     fb_error *err)
{
	fb_run *run = fb_xcalloc(1, sizeof *run);

	run->algo = &fb_algo_fedpc;
	run->name = fb_xstrdup("fedpc");
	run->data = ds;
	run->part = part;
	run->figures = fb_algo_fedpc.figures;
	while (run->figures[run->trace.nfig] != NULL)
		run->trace.nfig++;
	fb_fed_options_init(&run->fedopt);
	run->fedopt.threads = threads;
	if (fb_params_init(&run->params, fb_algo_fedpc.params, err) != FB_OK ||
	    fb_params_set_word(&run->params, "test=fisher-z", "fedpc", err) != FB_OK ||
	    (run->fed = fb_fed_alloc(part, &run->fedopt, err)) == NULL ||
	    fb_algo_fedpc.create(run, err) != FB_OK) {
		fb_run_free(run);
		return NULL;
	}
	return run;
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

/* Run the benchmarks. */
int main(int argc, char **argv)
{
	const char *paths[2] = { FB_TOP_SRCDIR, NULL }, *src, *data;
	size_t threads = 1, np = 0;
	char dir[4096];

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
	printf("FedPC, fisher-z, alpha 0.01, 10 contiguous clients\n");
	bench_shared(dir, threads > 0 ? threads : 1);
	threads = threads > 0 ? threads : 1;
	bench_large(1000, 5000, threads, "under 2 s and 300 MB");
	if (bench_huge())
		bench_large(10000, 10000, threads, "under 60 s, memory reported");
	else
		printf("sim_d10000_n10000: skipped (ten clients keep a 10,000 x 10,000 correlation "
		       "matrix each, packed: a peak of about 9.4 GB; set FB_BENCH_HUGE=1 to run it) "
		       "(target under 60 s)\n");
	return 0;
}
