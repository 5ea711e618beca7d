/* bench-notears: wall time of linear NOTEARS (defaults) on the shared synthetic data, per
 * outer iteration and in total, with evaluations and SHD; and the cost of one matrix
 * exponential by fb_expm against gsl_linalg_exponential_ss.
 *
 * Usage: bench-notears [SRCDIR [DATADIR [TAG...]]]
 * DATADIR defaults to SRCDIR/../shared/data, SRCDIR to the configured source folder; the
 * tags (folders of DATADIR/synth) default to A_d50_n150_s1 and A_d100_n300_s1; a tag
 * written split:TAG runs the split with NLopt's L-BFGS instead of OWL-QN, lbfgsb:TAG the
 * split with L-BFGS-B (the reference's algorithm).  The BLAS runs on one thread, as in
 * fedbn's runs (several threads only spin on matrices this small).  After each round the
 * objective is evaluated 200 times at the round's W, apart from the run's own timing, to
 * split the processor time into the evaluations' share and the optimiser's.
 *
 * The reference is xunzheng/notears's notears_linear(X, lambda1=0.01, loss_type='l2') with
 * its defaults (lambda1 as fedbn's default), run on the same X.csv by Debian 12's
 * python3-scipy 1.10.1 and numpy 1.24.2 with OPENBLAS_NUM_THREADS=1; its processor time,
 * measured on this machine under changing load, is set against the processor time here.
 * Its path is the same from run to run (scipy's nfev per minimize call, counted):
 * A_d50_n150_s1: 24 solves, 97,464 evaluations, 70 edges, SHD 27, in 40.9 s, 53.6 s and
 * 39.8 s (0.41 ms an evaluation at best); A_d100_n300_s1: 27 solves, 127,767 evaluations,
 * 96 edges, SHD 4, in 280.8 s, 285.6 s and 221.9 s (1.74 ms).  A 53 s run with 89 edges
 * once listed here was of lambda1 = 0.1 (again: 32,693 evaluations, 44.0 s, 89 edges).
 * The two extremes are printed and the target is taken against the faster. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_rng.h>

#include "bench-common.h"
#include "fedbn/core.h"
#include "fedbn/csv.h"
#include "fedbn/metrics.h"
#include "fedbn/notears.h"
#include "fedbn/optim.h"

#ifndef FB_TOP_SRCDIR
#define FB_TOP_SRCDIR "."
#endif

/* The reference's processor seconds on the default folders, the fastest and the slowest of
 * three runs (see above). */
static const struct {
	const char *tag;
	double seconds[2];
} bench_reference[] = { { "A_d50_n150_s1", { 39.8, 53.6 } },
                        { "A_d100_n300_s1", { 221.9, 285.6 } } };

/* Speed-up over the reference that is aimed at. */
#define BENCH_TARGET 50.0

/* Print processor seconds cpu on tag beside the reference and the target, when known. */
static void bench_against_reference(const char *tag, double cpu)
{
	for (size_t k = 0; k < sizeof bench_reference / sizeof bench_reference[0]; k++) {
		const double *ref = bench_reference[k].seconds;

		if (strcmp(tag, bench_reference[k].tag) == 0)
			printf("%s: %.2f s processor against the reference's %.1f s and %.1f s (fastest "
			       "and slowest run): %.1fx and %.1fx faster (target >= %.0fx against the faster "
			       "run, i.e. <= %.2f s)\n", tag, cpu, ref[0], ref[1], ref[0] / cpu,
			       ref[1] / cpu, BENCH_TARGET, ref[0] / BENCH_TARGET);
	}
}

/* The most speed-up over the reference that tag allows when only the evaluations
 * remained (eval_cpu processor seconds at this evaluation count). */
static void bench_floor(const char *tag, double eval_cpu)
{
	for (size_t k = 0; k < sizeof bench_reference / sizeof bench_reference[0]; k++)
		if (strcmp(tag, bench_reference[k].tag) == 0)
			printf("%s: with no optimiser cost at all, at most %.1fx against the faster "
			       "reference run\n", tag, bench_reference[k].seconds[0] / eval_cpu);
}

/* h(W) = tr(exp(W o W)) - d at the final W by fb_dag_h and by gsl_linalg_exponential_ss,
 * to show what the exponential's accuracy does to the quantity NOTEARS drives to 1e-8. */
static void compare_h(const gsl_matrix *W)
{
	size_t d = W->size1, i;
	gsl_matrix *A = gsl_matrix_alloc(d, d), *E = gsl_matrix_alloc(d, d);
	fb_dag_h_work *w = fb_dag_h_work_alloc(d);
	fb_error err = { "" };
	double h = 0.0, hg = -(double)d;

	for (i = 0; i < d * d; i++)
		A->data[i] = W->data[i] * W->data[i];
	fb_dag_h(W, w, &h, NULL, &err);
	gsl_linalg_exponential_ss(A, E, GSL_PREC_DOUBLE);
	for (i = 0; i < d; i++)
		hg += gsl_matrix_get(E, i, i);
	printf("  h at the result: fb_dag_h %.3e, with gsl_linalg_exponential_ss %.3e\n", h, hg);
	gsl_matrix_free(A);
	gsl_matrix_free(E);
	fb_dag_h_work_free(w);
}

/* Processor seconds of one evaluation of the smooth objective at W (the loss and its
 * gradient, h and its gradient, their sum), as the optimiser's callback does it; the
 * average of reps calls. */
static double eval_cost(fb_notears *nt, const gsl_matrix *W, size_t reps)
{
	size_t d = W->size1, i, k;
	gsl_matrix *G = gsl_matrix_alloc(d, d), *Gh = gsl_matrix_alloc(d, d);
	fb_dag_h_work *hw = fb_dag_h_work_alloc(d);
	fb_error err = { "" };
	double loss, h, c0 = bench_cpu_now(), cpu;

	for (k = 0; k < reps; k++) {
		fb_notears_loss(nt, W, &loss, G, &err);
		fb_dag_h(W, hw, &h, Gh, &err);
		for (i = 0; i < d * d; i++)
			G->data[i] += h * Gh->data[i];
	}
	cpu = (bench_cpu_now() - c0) / (double)reps;
	gsl_matrix_free(G);
	gsl_matrix_free(Gh);
	fb_dag_h_work_free(hw);
	return cpu;
}

/* Run NOTEARS to the end on one folder, printing one line per round and a summary. */
static int bench_one(const char *dir, const char *tag)
{
	fb_notears_options opt;
	fb_dataset *ds;
	fb_graph *truth, *est;
	char **names;
	fb_error err = { "" };
	fb_notears *nt;
	fb_notears_round rd;
	fb_metrics m;
	size_t evals = 0, rounds = 0;
	double t0, t1, c0, c1, total = 0.0, cpu, probe = 0.0, probe_wall = 0.0, eval_cpu = 0.0;

	fb_notears_options_init(&opt);
	if (strncmp(tag, "split:", 6) == 0) {
		opt.solver = FB_NOTEARS_SPLIT;
		tag += 6;
	} else if (strncmp(tag, "lbfgsb:", 7) == 0) {
		opt.solver = FB_NOTEARS_LBFGSB;
		tag += 7;
	}
	if (bench_load_synth(dir, tag, &ds, &truth) != FB_OK)
		return 0;
	names = fb_dataset_names(ds);
	printf("%s: n = %zu, d = %zu, solver %s\n", tag, ds->n, ds->d,
	       opt.solver == FB_NOTEARS_SPLIT    ? "split L-BFGS (NLopt)"
	       : opt.solver == FB_NOTEARS_LBFGSB ? "split L-BFGS-B (liblbfgsb)"
	                                         : "OWL-QN (liblbfgs)");
	t0 = bench_now();
	c0 = bench_cpu_now();
	nt = fb_notears_alloc(ds, &opt, &err);
	if (nt == NULL) {
		printf("%s: %s\n", tag, err.msg);
		return 1;
	}
	while (!fb_notears_done(nt)) {
		t1 = bench_now();
		if (fb_notears_step(nt, &rd, &err) != FB_OK) {
			printf("%s: %s\n", tag, err.msg);
			return 1;
		}
		rounds++;
		evals += rd.evals;
		t1 = bench_now() - t1;
		c1 = bench_cpu_now();
		probe_wall -= bench_now();
		eval_cpu += (double)rd.evals * eval_cost(nt, fb_notears_weights(nt), 200);
		probe += bench_cpu_now() - c1;
		probe_wall += bench_now();
		printf("  round %2zu  %7.3f s  evals %5zu  solves %zu  h %.3e  rho %.0e  "
		       "edges %zu  code %d\n", rd.iter, t1, rd.evals, rd.solves, rd.h,
		       rd.rho, rd.edges, rd.lbfgs_code);
	}
	est = fb_weights_to_dag(fb_notears_weights(nt), 0.3, names, NULL, &err);
	cpu = bench_cpu_now() - c0 - probe;
	if (est == NULL || fb_metrics_compute(est, truth, &m, &err) != FB_OK) {
		printf("%s: %s\n", tag, err.msg);
		return 1;
	}
	total = bench_now() - t0 - probe_wall;
	compare_h(fb_notears_weights(nt));
	printf("%s: total %.2f s wall, %.2f s processor, %zu rounds (%.3f s per round), "
	       "%zu evaluations (%.3f ms processor each), SHD %zu (edges %zu, true %zu)\n", tag,
	       total, cpu, rounds, total / (double)rounds, evals, 1e3 * cpu / (double)evals,
	       m.shd, m.nnz, m.true_edges);
	printf("%s: the evaluations alone (timed apart at each round's W) take about %.2f s "
	       "(%.0f us each), the optimiser's own work and the rest %.2f s\n", tag, eval_cpu,
	       1e6 * eval_cpu / (double)evals, cpu - eval_cpu);
	bench_floor(tag, eval_cpu);
	bench_against_reference(tag, cpu);
	fb_graph_free(est);
	fb_notears_free(nt);
	fb_graph_free(truth);
	fb_names_free(names, ds->d);
	fb_dataset_free(ds);
	return 0;
}

/* Time fb_expm and gsl_linalg_exponential_ss on a dense non-negative d x d matrix of
 * 1-norm about 2 (like W o W mid-run), and print their distance. */
static void bench_expm(size_t d)
{
	gsl_rng *r = fb_rng_stream(1, "bench-expm");
	gsl_matrix *A = gsl_matrix_alloc(d, d), *E = gsl_matrix_alloc(d, d);
	gsl_matrix *G = gsl_matrix_alloc(d, d);
	fb_dag_h_work *w = fb_dag_h_work_alloc(d);
	fb_error err = { "" };
	size_t i, reps = 20000 / d;
	double t0, t1, t2, num = 0.0, den = 0.0;

	for (i = 0; i < d * d; i++)
		A->data[i] = 4.0 * gsl_rng_uniform(r) / (double)d;
	t0 = bench_now();
	for (i = 0; i < reps; i++)
		fb_expm(A, w, E, &err);
	t1 = bench_now();
	for (i = 0; i < reps; i++)
		gsl_linalg_exponential_ss(A, G, GSL_PREC_DOUBLE);
	t2 = bench_now();
	for (i = 0; i < d * d; i++) {
		num += (E->data[i] - G->data[i]) * (E->data[i] - G->data[i]);
		den += E->data[i] * E->data[i];
	}
	printf("expm d = %3zu: fb_expm %8.1f us, gsl_linalg_exponential_ss %8.1f us, "
	       "relative distance %.1e\n", d, 1e6 * (t1 - t0) / (double)reps,
	       1e6 * (t2 - t1) / (double)reps, sqrt(num / den));
	gsl_matrix_free(A);
	gsl_matrix_free(E);
	gsl_matrix_free(G);
	fb_dag_h_work_free(w);
	gsl_rng_free(r);
}

/* Run the benchmarks. */
int main(int argc, char **argv)
{
	static const char *tags[] = { "A_d50_n150_s1", "A_d100_n300_s1" };
	const char *src = argc > 1 ? argv[1] : FB_TOP_SRCDIR;
	char dir[1024];
	int k, status = 0;

	fb_gsl_install_handler();
	fb_blas_single_thread();
	if (argc > 2)
		snprintf(dir, sizeof dir, "%s", argv[2]);
	else
		snprintf(dir, sizeof dir, "%s/../shared/data", src);
	printf("bench-notears: data %s, BLAS on one thread\n", dir);
	bench_expm(20);
	bench_expm(50);
	bench_expm(100);
	if (argc > 3)
		for (k = 3; k < argc; k++)
			status |= bench_one(dir, argv[k]);
	else
		for (k = 0; k < 2; k++)
			status |= bench_one(dir, tags[k]);
	return status;
}
