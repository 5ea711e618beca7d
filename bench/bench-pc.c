/* bench-pc: wall and processor time (of the run with the least processor time) of PC with
 * Fisher-z (stable, alpha 0.05 and 0.01) on the shared synthetic data A_d50_n150_s1 and
 * A_d100_n300_s1 (causal-learn's pc takes about 0.9 s and 5.2 s on them), and on a simulated
 * linear-Gaussian sample with d = 1000, n = 5000 and 1000 edges; then PC with chi-square as causal-learn runs it (compat=causal-learn, alpha 0.05) on
 * 10,000 rows sampled from alarm and andes (causal-learn takes about 17 s on the 76-variable
 * win95pts network, which the shared data lacks: the 37-variable alarm and the 223-variable
 * andes stand on either side of it; pigs is left out, its hub of 39 children makes the run
 * take minutes), with one thread and with two (the processor time is then of both); with
 * tests asked, cache hits, levels and the CPDAG-SHD against the truth.
 *
 * Last, when FB_BENCH_HUGE is set (not empty, not 0; `make bench` sets it), PC with Fisher-z on a simulated sample of d = 10,000,
 * n = 10,000 (10,000 edges), with the process's peak memory: PC asks 2.1e9 tests over 24
 * levels there, most of them at levels 6 to 13, where fewer than 800 of 28,000 edges go; it
 * took 54 s of processor time on one thread (of which about 18 s build the correlation
 * matrix and 34 s go to levels 2 to 23, 16 ns a test), and the process peaks at 3.5 GB (the
 * data, its correlation matrix and the bench's d x d graphs); run alone, the program leaves
 * it out.
 *
 * Usage: bench-pc [SRCDIR [DATADIR]]
 * DATADIR defaults to SRCDIR/../shared/data, SRCDIR to the configured source folder.  Set
 * OPENBLAS_NUM_THREADS=1 to measure one thread. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench-common.h"
#include "fedbn/algo.h"
#include "fedbn/bif.h"
#include "fedbn/cpdag.h"
#include "fedbn/csv.h"
#include "fedbn/pc.h"
#include "fedbn/sim.h"

#ifndef FB_TOP_SRCDIR
#define FB_TOP_SRCDIR "."
#endif

/* What one run of PC did. */
typedef struct bench_run {
	double seconds;   /* wall time from the data to the CPDAG */
	double cpu;       /* processor time of the same (less disturbed by a loaded machine) */
	size_t levels;    /* skeleton levels run */
	size_t tests;     /* tests asked for */
	size_t hits;      /* of which the cache answered */
	size_t shd;       /* CPDAG-SHD against the truth's CPDAG */
	size_t edges;     /* edges of the CPDAG */
	double extend;    /* wall time of the CPDAG's DAG extension (Dor and Tarsi), as every
	                     round's score against the truth needs it */
} bench_run;

/* The test of the runs: Fisher-z, or chi-square in causal-learn's conventions. */
static bool bench_discrete;

/* Threads of the chi-square runs (their tests; results do not depend on it). */
static size_t bench_threads = 1;

/* Run PC (stable) on ds at alpha and compare with truth's CPDAG. */
static int bench_once(const fb_dataset *ds, const fb_graph *truth, double alpha,
                      bench_run *b)
{
	fb_pc_options o;
	fb_pc *pc;
	fb_pc_round r;
	fb_ci_stats st;
	fb_graph *cp;
	fb_error err = { "" };
	double t0 = bench_now(), c0 = bench_cpu_now();

	fb_pc_options_init(&o);
	o.alpha = alpha;
	o.ci.test = bench_discrete ? FB_CI_CHI2 : FB_CI_FISHER_Z;
	if (bench_discrete) {
		o.compat = FB_PC_COMPAT_CAUSAL_LEARN;
		o.threads = bench_threads;
	}
	if ((pc = fb_pc_alloc(ds, &o, &err)) == NULL) {
		printf("pc: %s\n", err.msg);
		return FB_ERR;
	}
	b->levels = 0;
	while (!fb_pc_done(pc)) {
		if (fb_pc_step(pc, &r, &err) != FB_OK) {
			printf("pc: %s\n", err.msg);
			fb_pc_free(pc);
			return FB_ERR;
		}
		b->levels += !r.orientation;
	}
	b->seconds = bench_now() - t0;
	b->cpu = bench_cpu_now() - c0;
	fb_ci_get_stats(fb_pc_ci(pc), &st);
	b->tests = st.queries;
	b->hits = st.hits;
	b->edges = fb_graph_n_edges(fb_pc_graph(pc));
	t0 = bench_now();
	fb_graph_free(fb_cpdag_to_dag(fb_pc_graph(pc), NULL));
	b->extend = bench_now() - t0;
	cp = fb_cpdag_from_dag(truth, NULL);
	b->shd = 0;
	if (cp != NULL)
		fb_cpdag_shd(fb_pc_graph(pc), cp, &b->shd, NULL);
	fb_graph_free(cp);
	fb_pc_free(pc);
	return FB_OK;
}

/* Print one line of figures, the time the best of reps runs, and the target (or NULL). */
static void bench_print(const char *what, double alpha, const fb_dataset *ds,
                        const fb_graph *truth, int reps, const char *target)
{
	bench_run b, best = { 0 };

	for (int k = 0; k < reps; k++) {
		if (bench_once(ds, truth, alpha, &b) != FB_OK)
			return;
		if (k == 0 || b.cpu < best.cpu)
			best = b;
	}
	printf("%-16s alpha %-5g %9.4f s (CPU %.4f s)  levels %zu  tests %8zu  hits %8zu  "
	       "edges %4zu  truth %4zu  CPDAG-SHD %zu  DAG extension %.4f s%s%s%s\n", what, alpha,
	       best.seconds, best.cpu, best.levels, best.tests, best.hits, best.edges,
	       fb_graph_n_edges(truth), best.shd, best.extend, target != NULL ? " (target " : "",
	       target != NULL ? target : "", target != NULL ? ")" : "");
}

/* Benchmark the shared synthetic folders. */
static void bench_shared(const char *dir)
{
	static const char *const tags[] = { "A_d50_n150_s1", "A_d100_n300_s1" };

	for (size_t t = 0; t < 2; t++) {
		fb_dataset *ds;
		fb_graph *truth;

		if (bench_load_synth(dir, tags[t], &ds, &truth) != FB_OK)
			continue;
		bench_print(tags[t], 0.05, ds, truth, 20, NULL);
		bench_print(tags[t], 0.01, ds, truth, 20, NULL);
		fb_dataset_free(ds);
		fb_graph_free(truth);
	}
}

/* PC as the shell runs it (alpha 0.01) on ds with the truth loaded: every level's estimate
 * kept and scored against the truth; print the wall and processor time of all rounds. */
static void bench_scored(const char *what, const fb_dataset *ds, const fb_graph *truth,
                         const char *target)
{
	fb_params params;
	fb_error err = { "" };
	fb_run *run = NULL;
	double t0 = bench_now(), c0 = bench_cpu_now();
	fb_score sc = { 0 };

	if (fb_params_init(&params, fb_algo_pc.params, &err) != FB_OK ||
	    fb_params_set_word(&params, "alpha=0.01", "pc", &err) != FB_OK ||
	    (run = fb_run_alloc(&(fb_run_spec){ .algo = "pc", .params = &params, .data = ds,
	                                        .truth = truth },
	                        &err)) == NULL) {
		printf("%s: %s\n", what, err.msg);
		fb_params_release(&params);
		return;
	}
	while (!fb_run_done(run))
		if (fb_run_step(run, &err) != FB_OK) {
			printf("%s: %s\n", what, err.msg);
			break;
		}
	t0 = bench_now() - t0;
	c0 = bench_cpu_now() - c0;
	fb_run_score(run, &sc, &err);
	printf("%-16s alpha 0.01  %9.4f s (CPU %.4f s) with the truth loaded: %zu rounds, each "
	       "scored (SHD %g, CPDAG-SHD %g)%s%s%s\n", what, t0, c0, fb_run_rounds(run), sc.shd,
	       sc.shd_cpdag, target != NULL ? " (target " : "", target != NULL ? target : "",
	       target != NULL ? ")" : "");
	fb_run_free(run);
	fb_params_release(&params);
}

/* Benchmark a simulated linear-Gaussian sample of d variables, n rows and d edges (seed 1)
 * against target; with the process's peak memory when memory is set. */
static void bench_large(size_t d, size_t n, const char *target, bool memory)
{
	fb_sim_options so;
	fb_dataset *ds;
	fb_graph *truth;
	fb_error err = { "" };
	double t0 = bench_now();
	char what[64];
	struct rusage ru;

	fb_sim_options_init(&so);
	so.d = d;
	so.edges = d;
	so.n = n;
	so.seed = 1;
	if (fb_sim_generate(&so, &ds, &truth, &err) != FB_OK) {
		printf("simulation: %s\n", err.msg);
		return;
	}
	printf("simulated d %zu, n %zu, %zu edges in %.2f s\n", d, n, d, bench_now() - t0);
	snprintf(what, sizeof what, "sim_d%zu_n%zu", d, n);
	bench_print(what, 0.01, ds, truth, 1, target);
	if (!memory)
		bench_scored(what, ds, truth, "end to end under 1 s");
	fb_dataset_free(ds);
	fb_graph_free(truth);
	getrusage(RUSAGE_SELF, &ru);
	if (memory)
		printf("%s: peak memory of the process %.1f MB (target: %s, memory reported)\n",
		       what, (double)ru.ru_maxrss / 1024.0, target);
}

/* Benchmark chi-square PC on 10,000 rows sampled from each shared BIF network. */
static void bench_bif(const char *dir)
{
	static const char *const nets[] = { "alarm", "andes" };
	static const char *const targets[] = { "under 0.05 s", "under 1 s" };
	static const int reps[] = { 3, 3 };

	bench_discrete = true;
	printf("PC, chi-square, compat=causal-learn; 10,000 rows sampled with seed 1; best of 3 "
	       "runs\n");
	for (size_t t = 0; t < sizeof nets / sizeof nets[0]; t++) {
		char path[4096 + 64];
		fb_error err = { "" };
		fb_bn *bn;
		fb_dataset *ds = NULL;
		fb_graph *truth = NULL;

		snprintf(path, sizeof path, "%s/bif/%s.bif", dir, nets[t]);
		if ((bn = fb_bif_read(path, &err)) == NULL) {
			printf("%s: skipped (%s)\n", nets[t], err.msg);
			continue;
		}
		ds = fb_bn_sample(bn, 10000, 1, &err);
		truth = fb_bn_graph(bn);
		for (bench_threads = 1; bench_threads <= 2 && ds != NULL && truth != NULL;
		     bench_threads++) {
			char what[64];

			snprintf(what, sizeof what, "%s, %zu thr", nets[t], bench_threads);
			bench_print(what, 0.05, ds, truth, reps[t], targets[t]);
		}
		if (ds == NULL || truth == NULL)
			printf("%s: skipped (%s)\n", nets[t], ds == NULL ? err.msg : "out of memory");
		fb_dataset_free(ds);
		fb_graph_free(truth);
		fb_bn_free(bn);
	}
	bench_discrete = false;
}

/* Run the benchmarks. */
int main(int argc, char **argv)
{
	const char *src = argc > 1 ? argv[1] : FB_TOP_SRCDIR;
	char dir[4096];

	fb_gsl_install_handler();
	if (argc > 2)
		snprintf(dir, sizeof dir, "%s", argv[2]);
	else
		snprintf(dir, sizeof dir, "%s/../shared/data", src);
	printf("PC, Fisher-z, stable, strength rule; best of 20 runs (1 for d = 1000)\n");
	bench_shared(dir);
	bench_large(1000, 5000, "PC under 1 s", false);
	bench_bif(dir);
	if (bench_huge())
		bench_large(10000, 10000, "under 60 s", true);
	else
		printf("sim_d10000_n10000: skipped (2.1e9 tests over 24 levels, about a minute of "
		       "processor time, 3.5 GB; set FB_BENCH_HUGE=1 to run it) (target under 60 s)\n");
	return 0;
}
