/* Forward (ancestral) sampling of a discrete Bayesian network. */
#include "config.h"

#include <stdlib.h>

#include <gsl/gsl_rng.h>

#include "fedbn/bif.h"

/* The state drawn by uniform u from the k probabilities of row p: the first whose cumulative
 * sum exceeds u, or the last state of non-zero probability when rounding leaves u above the
 * total. */
static size_t draw_state(const double *p, size_t k, double u)
{
	double c = 0;
	size_t last = 0;

	for (size_t s = 0; s < k; s++) {
		if (p[s] <= 0)
			continue;
		c += p[s];
		if (u < c)
			return s;
		last = s;
	}
	return last;
}

/* A dataset of n rows with the network's variables, discrete, levels = states. */
static fb_dataset *sample_alloc(const fb_bn *bn, size_t n, fb_error *err)
{
	fb_dataset *ds = fb_dataset_alloc(n, bn->d);

	if (ds == NULL) {
		fb_fail(err, "cannot sample %zu rows of %zu variables: out of memory", n, bn->d);
		return NULL;
	}
	for (size_t j = 0; j < bn->d; j++) {
		const fb_bn_node *v = &bn->nodes[j];

		if (fb_dataset_set_name(ds, j, v->name, err) != FB_OK ||
		    fb_dataset_set_levels(ds, j, v->states, v->nstates, err) != FB_OK) {
			fb_dataset_free(ds);
			return NULL;
		}
	}
	return ds;
}

/* Fill one row: d uniforms in column order, then each variable in topological order. */
static void sample_row(const fb_bn *bn, gsl_rng *r, double *u, size_t *code, double *row)
{
	for (size_t j = 0; j < bn->d; j++)
		u[j] = gsl_rng_uniform(r);
	for (size_t t = 0; t < bn->d; t++) {
		size_t j = bn->order[t], c = 0;
		const fb_bn_node *v = &bn->nodes[j];

		for (size_t m = 0; m < v->nparents; m++)
			c = c * bn->nodes[v->parents[m]].nstates + code[v->parents[m]];
		code[j] = draw_state(v->cpt + c * v->nstates, v->nstates, u[j]);
		row[j] = (double)code[j];
	}
}

/* Draw n rows by forward sampling from the stream "sample" of seed. */
fb_dataset *fb_bn_sample(const fb_bn *bn, size_t n, uint64_t seed, fb_error *err)
{
	fb_dataset *ds;
	double *u;
	size_t *code;
	gsl_rng *r;

	if (n == 0) {
		fb_fail(err, "cannot sample 0 rows: n must be at least 1");
		return NULL;
	}
	ds = sample_alloc(bn, n, err);
	if (ds == NULL)
		return NULL;
	u = malloc(bn->d * sizeof *u);
	code = malloc(bn->d * sizeof *code);
	if (u == NULL || code == NULL) {
		free(u);
		free(code);
		fb_dataset_free(ds);
		fb_fail(err, "cannot sample %zu variables: out of memory", bn->d);
		return NULL;
	}
	r = fb_rng_stream(seed, "sample");
	for (size_t i = 0; i < n; i++)
		sample_row(bn, r, u, code, ds->x + i * bn->d);
	gsl_rng_free(r);
	free(u);
	free(code);
	return ds;
}
