/* bench-circuit: evaluation throughput of a probabilistic circuit, in row x node
 * evaluations per second, on one thread.
 *
 * The circuit (built from a seeded stream) is shaped like a LearnSPN result over 16
 * variables: a root mixture of 6 products, each over four blocks of four variables, each
 * block a mixture of 3 products of leaves (8 Gaussian, 4 histogram, 4 categorical
 * variables): 391 nodes.  100,000 rows are drawn from it; log-likelihood, marginal (half the
 * variables unobserved) and MPE passes are timed, best of 3 processor times. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

#include "bench-common.h"
#include "fedbn/circuit.h"

/* Variables, blocks of four, top-level products, components per block, rows. */
#define D 16
#define TOP 6
#define COMP 3
#define ROWS 100000

/* Random weights summing to 1 into w[n]. */
static void random_weights(gsl_rng *r, double *w, size_t n)
{
	double t = 0;

	for (size_t i = 0; i < n; i++)
		t += w[i] = 0.2 + gsl_rng_uniform(r);
	for (size_t i = 0; i < n; i++)
		w[i] /= t;
}

/* Append a random leaf over variable j; its id is returned. */
static size_t random_leaf(fb_circuit *c, gsl_rng *r, size_t j)
{
	double v[200], p[4];
	fb_column_slice col = { .x = v, .stride = 1, .rows = NULL, .n = 200 };
	fb_leaf lf;
	size_t id;
	int rc;

	if (j < 8) {
		rc = fb_leaf_gaussian(&lf, j, gsl_ran_gaussian(r, 1), 0.5 + gsl_rng_uniform(r), NULL);
	} else if (j < 12) {
		for (size_t i = 0; i < 200; i++)
			v[i] = gsl_ran_gaussian(r, 1) + gsl_ran_exponential(r, 1);
		rc = fb_leaf_fit_histogram(&lf, j, 0, &col, NULL);
	} else {
		random_weights(r, p, 4);
		rc = fb_leaf_categorical(&lf, j, p, 4, NULL);
	}
	if (rc != FB_OK || fb_circuit_add_leaf(c, &lf, (int)(j / 4), &id, NULL) != FB_OK)
		exit(1);
	return id;
}

/* Append a mixture of COMP products over variables b*4 .. b*4+3; its id is returned. */
static size_t random_block(fb_circuit *c, gsl_rng *r, size_t b)
{
	size_t prods[COMP], leaves[4], id;
	double w[COMP];

	for (size_t k = 0; k < COMP; k++) {
		for (size_t j = 0; j < 4; j++)
			leaves[j] = random_leaf(c, r, 4 * b + j);
		if (fb_circuit_add_product(c, leaves, 4, (int)b, &prods[k], NULL) != FB_OK)
			exit(1);
	}
	random_weights(r, w, COMP);
	if (fb_circuit_add_sum(c, prods, w, COMP, (int)b, &id, NULL) != FB_OK)
		exit(1);
	return id;
}

/* The benchmark circuit. */
static fb_circuit *bench_circuit(gsl_rng *r)
{
	fb_circuit *c = fb_circuit_alloc(D);
	size_t top[TOP], blocks[D / 4], id;
	double w[TOP];

	for (size_t t = 0; t < TOP; t++) {
		for (size_t b = 0; b < D / 4; b++)
			blocks[b] = random_block(c, r, b);
		if (fb_circuit_add_product(c, blocks, D / 4, FB_CIRCUIT_SERVER, &top[t], NULL) != FB_OK)
			exit(1);
	}
	random_weights(r, w, TOP);
	if (fb_circuit_add_sum(c, top, w, TOP, FB_CIRCUIT_SERVER, &id, NULL) != FB_OK ||
	    fb_circuit_check(c, NULL) != FB_OK)
		exit(1);
	return c;
}

/* Best of 3 processor times of one kind of pass (0 log-likelihood, 1 marginal, 2 MPE). */
static double time_pass(const fb_circuit *c, const double *x, double *work, double *out,
                        int kind)
{
	double best = INFINITY;

	for (int rep = 0; rep < 3; rep++) {
		double t;

		for (size_t i = 0; i < (size_t)ROWS * D; i++)
			work[i] = kind == 0 || (i % D) % 2 == 0 ? x[i] : NAN;
		t = bench_cpu_now();
		if ((kind == 2 ? fb_circuit_mpe(c, work, ROWS, out, NULL)
		               : fb_circuit_logpdf(c, work, ROWS, out, NULL)) != FB_OK)
			exit(1);
		t = bench_cpu_now() - t;
		best = t < best ? t : best;
	}
	return best;
}

int main(void)
{
	static const char *const names[3] = { "log-likelihood", "marginal (8 of 16 unobserved)",
	                                       "MPE completion (8 of 16 unobserved)" };
	gsl_rng *r = fb_rng_stream(2024, "bench-circuit");
	fb_circuit *c = bench_circuit(r);
	double *x = malloc((size_t)ROWS * D * sizeof *x), *work = malloc((size_t)ROWS * D * sizeof *x);
	double *out = malloc(ROWS * sizeof *out), mean = 0;

	if (x == NULL || work == NULL || out == NULL ||
	    fb_circuit_sample(c, ROWS, r, x, NULL) != FB_OK)
		return 1;
	printf("circuit: %zu nodes over %d variables; %d rows drawn from it; one thread\n",
	       c->nnodes, D, ROWS);
	for (int kind = 0; kind < 3; kind++) {
		double t = time_pass(c, x, work, out, kind);

		printf("%-38s %.3f s  %.1f million row x node evaluations per second\n", names[kind],
		       t, (double)ROWS * (double)c->nnodes / t / 1e6);
	}
	fb_circuit_logpdf(c, x, ROWS, out, NULL);
	for (size_t i = 0; i < ROWS; i++)
		mean += out[i] / ROWS;
	printf("mean log-likelihood of the rows drawn: %.4f\n", mean);
	fb_circuit_free(c);
	gsl_rng_free(r);
	free(x);
	free(work);
	free(out);
	return 0;
}
