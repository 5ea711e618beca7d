/* Classification with a circuit: the label's most probable value given the other observed
 * values, argmax_y log p(y, x_E) (the conditional's argmax: p(x_E) is common to every y). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/circuit.h"

/* Rows classified together. */
#define CLASSIFY_BATCH 1024

/* Fill the m rows of batch (rows of x from row at) with the label set to y. */
static void batch_fill(double *batch, const double *x, size_t at, size_t m, size_t d,
                       size_t target, double y)
{
	memcpy(batch, x + at * d, m * d * sizeof *batch);
	for (size_t i = 0; i < m; i++)
		batch[i * d + target] = y;
}

/* Predict the label of n rows. */
int fb_circuit_classify(const fb_circuit *c, const double *x, size_t n, size_t target,
                        size_t nlevels, size_t *label, double *logp, fb_error *err)
{
	size_t d = c->nvars;
	double *batch = malloc(CLASSIFY_BATCH * (d ? d : 1) * sizeof *batch);
	double *lp = malloc(CLASSIFY_BATCH * sizeof *lp), *best = malloc(CLASSIFY_BATCH * sizeof *best);
	int rc = FB_OK;

	if (target >= d || nlevels == 0)
		rc = fb_fail(err, "cannot classify variable %zu of a circuit over %zu with %zu "
		                  "values", target + 1, d, nlevels);
	else if (batch == NULL || lp == NULL || best == NULL)
		rc = fb_fail(err, "out of memory classifying %zu rows", n);
	for (size_t at = 0; rc == FB_OK && at < n; at += CLASSIFY_BATCH) {
		size_t m = n - at < CLASSIFY_BATCH ? n - at : CLASSIFY_BATCH;

		for (size_t y = 0; rc == FB_OK && y < nlevels; y++) {
			batch_fill(batch, x, at, m, d, target, (double)y);
			rc = fb_circuit_logpdf(c, batch, m, lp, err);
			for (size_t i = 0; rc == FB_OK && i < m; i++)
				if (y == 0 || lp[i] > best[i]) {
					best[i] = lp[i];
					label[at + i] = y;
				}
		}
		for (size_t i = 0; rc == FB_OK && logp != NULL && i < m; i++)
			logp[at + i] = best[i];
	}
	free(batch);
	free(lp);
	free(best);
	return rc;
}
