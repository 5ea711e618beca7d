/* bench-kci: processor time of one KCI test (gamma approximation, causal-learn's widths) at
 * n = 1000, given nothing, one and two variables, beside the target of 20 times causal-learn's
 * KCI_UInd / KCI_CInd on the same kind of data (x = sin z1 + z2/2 + e, y = cos z1 - z2/2 + e;
 * causal-learn, commit e30895b, takes 0.020 s, 0.62 s and 0.63 s of processor time with one
 * BLAS thread, the least of three runs on numpy data of the same form).  Each figure is the
 * least over three runs with the cache off, with the BLAS on one thread as in fedbn's runs;
 * p-values are printed in full.  Given nothing and given one or two variables the kernels
 * here have low rank, so these times are the low-rank route's.  The comparison is of one
 * thread with one thread: fb_blas_single_thread also shuts OpenBLAS's idle thread pool down,
 * whose threads otherwise call sched_yield in a loop for about 0.1 s after the library loads,
 * which on an idle machine doubled the processor time of these short tests. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "bench-common.h"
#include "fedbn/ci.h"
#include "fedbn/core.h"
#include "fedbn/dataset.h"

/* Rows of the sample. */
#define BENCH_N 1000

/* causal-learn's processor seconds given 0, 1 and 2 variables (one BLAS thread). */
static const double bench_reference[3] = { 0.020, 0.62, 0.63 };

/* The sample: columns x, y, z1, z2 as in the header comment (seed 1). */
static fb_dataset *bench_sample(void)
{
	fb_dataset *ds = fb_dataset_alloc(BENCH_N, 4);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	if (ds == NULL || r == NULL) {
		fb_dataset_free(ds);
		if (r != NULL)
			gsl_rng_free(r);
		return NULL;
	}
	gsl_rng_set(r, 1);
	for (size_t i = 0; i < BENCH_N; i++) {
		double z1 = gsl_ran_gaussian(r, 1.0), z2 = gsl_ran_gaussian(r, 1.0);

		ds->x[i * 4 + 0] = sin(z1) + 0.5 * z2 + gsl_ran_gaussian(r, 0.3);
		ds->x[i * 4 + 1] = cos(z1) - 0.5 * z2 + gsl_ran_gaussian(r, 0.3);
		ds->x[i * 4 + 2] = z1;
		ds->x[i * 4 + 3] = z2;
	}
	gsl_rng_free(r);
	return ds;
}

/* Time x _||_ y given the first ns of z1, z2; print it beside the target. */
static int bench_one(fb_ci *ci, size_t ns)
{
	static const size_t S[2] = { 2, 3 };
	double best = INFINITY, target = bench_reference[ns] / 20.0;
	fb_ci_result res;
	fb_error err = { "" };

	for (int rep = 0; rep < 3; rep++) {
		double t = bench_cpu_now();

		if (fb_ci_test(ci, 0, 1, S, ns, &res, &err) != FB_OK) {
			fprintf(stderr, "bench-kci: %s\n", err.msg);
			return 1;
		}
		t = bench_cpu_now() - t;
		if (t < best)
			best = t;
	}
	printf("kci n=%d |S|=%zu: %.4f s (p %.17g), causal-learn %.3f s, %.1fx (target <= %.4f s, "
	       ">= 20x)\n", BENCH_N, ns, best, res.p, bench_reference[ns],
	       bench_reference[ns] / best, target);
	return 0;
}

/* Run the three tests. */
int main(void)
{
	fb_dataset *ds;
	fb_ci_options o;
	fb_error err = { "" };
	fb_ci *ci;
	int ret = 0;

	ds = bench_sample();
	if (ds == NULL)
		return 1;
	fb_blas_single_thread();
	fb_ci_options_init(&o);
	o.test = FB_CI_KCI;
	o.cache = false;
	ci = fb_ci_alloc(ds, &o, &err);
	fb_dataset_free(ds);
	if (ci == NULL) {
		fprintf(stderr, "bench-kci: %s\n", err.msg);
		return 1;
	}
	for (size_t ns = 0; ns <= 2 && ret == 0; ns++)
		ret = bench_one(ci, ns);
	fb_ci_free(ci);
	return ret;
}
