/* The degenerate Gaussian likelihood-ratio test for data that mixes continuous and discrete
 * columns (Andrews, Ramsey and Cooper 2019; dg-private.h): x _||_ y | S compares the
 * Gaussian model of y's embedded columns given S's with the one given S's and x's. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "ci-private.h"

/* Embed ds for the test. */
int ci_dg_init(fb_ci *ci, const fb_dataset *ds, fb_error *err)
{
	ci->dg = calloc(1, sizeof *ci->dg);
	if (ci->dg == NULL)
		return fb_fail(err, "out of memory for a %zu-variable test", ds->d);
	if (dg_embed_init(ci->dg, ds, err) != FB_OK)
		return FB_ERR;
	ci->dg_skip = calloc(2 * ci->dg->D + 2, 1);
	ci->dg_lp = calloc(2 * ci->dg->D + 2, sizeof *ci->dg_lp);
	if (ci->dg_skip == NULL || ci->dg_lp == NULL)
		return fb_fail(err, "out of memory for a %zu-variable test", ds->d);
	return FB_OK;
}

/* Free the test's embedding and scratch. */
void ci_dg_release(fb_ci *ci)
{
	if (ci->dg != NULL)
		dg_embed_release(ci->dg);
	free(ci->dg);
	dg_work_release(&ci->dgw);
	free(ci->dg_skip);
	free(ci->dg_lp);
}

/* Target columns kept (not skipped) among the first m of skip. */
static size_t ci_dg_kept(const unsigned char *skip, size_t m)
{
	size_t k = 0;

	for (size_t t = 0; t < m; t++)
		k += !skip[t];
	return k;
}

/* The statistic 2 (log L(y | S, x) - log L(y | S)) = n (log det(y | S) - log det(y | S, x))
 * over y's columns that S does not determine, x's columns that S determines left out; df
 * the product of the columns kept of x and of y; FB_ERR when out of memory. */
static int ci_dg_stat(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                      double *stat, size_t *df)
{
	const dg_embed *e = ci->dg;
	size_t wx = dg_width(e, x), wy = dg_width(e, y), xy[2] = { x, y };
	unsigned char *skip = ci->dg_skip;
	double *lp = ci->dg_lp, lr = 0;

	for (size_t t = 0; t < wx + wy; t++)
		skip[t] = 0;
	/* x given S, then y given S (into the second half), then y given S and x */
	if (dg_factor(e, S, ns, &x, 1, DG_SKIP, skip, lp, NULL, &ci->dgw) == (size_t)-1 ||
	    dg_factor(e, S, ns, &y, 1, DG_SKIP, skip + wx, lp + wx + wy, NULL, &ci->dgw) ==
	            (size_t)-1 ||
	    dg_factor(e, S, ns, xy, 2, DG_FLOOR, skip, lp, NULL, &ci->dgw) == (size_t)-1)
		return FB_ERR;
	for (size_t t = 0; t < wy; t++)
		if (!skip[wx + t])
			lr += lp[wx + wy + t] - lp[wx + t];
	*stat = lr > 0 ? (double)e->n * lr : 0;
	*df = ci_dg_kept(skip, wx) * ci_dg_kept(skip + wx, wy);
	return FB_OK;
}

/* The test for x < y and sorted S. */
void ci_dg_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, fb_ci_result *res)
{
	double stat;
	size_t df;

	res->r = NAN;
	res->flags = 0;
	if (ci_dg_stat(ci, x, y, S, ns, &stat, &df) != FB_OK) {
		res->p = NAN;
		res->flags = FB_CI_INVALID;
		return;
	}
	res->stat = stat;
	res->df = (double)df;
	if (df == 0) {
		res->p = 1;
		res->flags |= FB_CI_ZERO_DF;
	} else {
		res->p = gsl_cdf_chisq_Q(stat, (double)df);
	}
}
