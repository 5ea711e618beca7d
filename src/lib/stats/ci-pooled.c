/* G² and χ² tests answered from contingency tables alone, for a server that holds the
 * clients' tables summed (FedC2SL) and never a row.  The object has the variables' declared
 * levels, the levels that occur in the pooled data and the pooled row count; each answer is
 * computed from the table given for it, by the same per-stratum statistic, degrees of
 * freedom and rules as a test on the pooled rows (ci-discrete.c), and kept in the cache,
 * where PC's own search then finds it.  The strata are summed in the order of their codes
 * (the first conditioning variable's level most significant), where the test on rows sums
 * them in order of first occurrence: the two agree to the last bits of the sum. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ci-private.h"

/* Most levels of one variable a pooled table may have (as a test on rows). */
#define POOLED_LEVELS_MAX 8192

/* Allocate the per-stratum tables of an object whose widest variable has cmax levels. */
static int pooled_ws(fb_ci *ci, fb_error *err)
{
	ci_disc_ws *w = &ci->dws;

	w->tab = calloc(ci->cmax * ci->cmax, sizeof *w->tab);
	w->rowm = calloc(ci->cmax, sizeof *w->rowm);
	w->colm = calloc(ci->cmax, sizeof *w->colm);
	w->colmd = malloc((ci->cmax + 3) * sizeof *w->colmd); /* padded to 4 lanes */
	w->nzr = malloc(ci->cmax * sizeof *w->nzr);
	w->nzc = malloc(ci->cmax * sizeof *w->nzc);
	if (w->tab == NULL || w->rowm == NULL || w->colm == NULL || w->colmd == NULL ||
	    w->nzr == NULL || w->nzc == NULL)
		return fb_fail(err, "out of memory for tables of %zu levels", ci->cmax);
	return FB_OK;
}

/* An object of pooled tables over d variables of nlev levels each. */
fb_ci *fb_ci_alloc_pooled(size_t d, const size_t *nlev, const fb_ci_options *opt,
                          fb_error *err)
{
	fb_ci_options o;
	fb_ci *ci;

	if (opt != NULL)
		o = *opt;
	else
		fb_ci_options_init(&o);
	if (o.test == FB_CI_AUTO)
		o.test = FB_CI_G2;
	if (o.test != FB_CI_G2 && o.test != FB_CI_CHI2) {
		fb_fail(err, "pooled contingency tables take test=g2 or test=chi2, not %s",
		        fb_ci_test_name(o.test));
		return NULL;
	}
	if (d < 2 || (ci = ci_new(d, 0, &o)) == NULL) {
		fb_fail(err, d < 2 ? "a test of independence needs two variables" : "out of memory");
		return NULL;
	}
	ci->nlev = calloc(d, sizeof *ci->nlev);
	ci->present = calloc(d, sizeof *ci->present);
	for (size_t j = 0; ci->nlev != NULL && ci->present != NULL && j < d; j++) {
		if (nlev[j] < 1 || nlev[j] > POOLED_LEVELS_MAX) {
			fb_fail(err, "variable %zu has %zu levels; a pooled table takes 1 to %d", j + 1,
			        nlev[j], POOLED_LEVELS_MAX);
			fb_ci_free(ci);
			return NULL;
		}
		ci->nlev[j] = ci->present[j] = nlev[j];
		ci->cmax = nlev[j] > ci->cmax ? nlev[j] : ci->cmax;
	}
	if (ci->nlev == NULL || ci->present == NULL || pooled_ws(ci, err) != FB_OK) {
		fb_ci_free(ci);
		return NULL;
	}
	return ci;
}

/* Check that v is a count: a whole number in [0, 2^32). */
static bool is_count(double v)
{
	return v >= 0.0 && v < 4294967296.0 && v == (double)(uint32_t)v;
}

/* The pooled margins: counts of each level of each variable, variables one after the
 * other. */
int fb_ci_pooled_margins(fb_ci *ci, const double *counts, fb_error *err)
{
	const double *c = counts;
	double n0 = -1.0;

	for (size_t j = 0; j < ci->d; j++) {
		double n = 0.0;

		ci->present[j] = 0;
		for (size_t a = 0; a < ci->nlev[j]; a++, c++) {
			if (!is_count(*c))
				return fb_fail(err, "level %zu of variable %zu has count %g, not a whole "
				               "number of rows", a + 1, j + 1, *c);
			n += *c;
			ci->present[j] += *c > 0.0;
		}
		if (n0 >= 0.0 && n != n0)
			return fb_fail(err, "variable %zu counts %g rows where variable 1 counts %g",
			               j + 1, n, n0);
		n0 = n;
	}
	ci->n = (size_t)n0;
	return FB_OK;
}

/* Cells of the table of x and y given S (c_x c_y prod_S c_v), as a double (it may be
 * beyond size_t). */
double fb_ci_pooled_cells(const fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns)
{
	double cells = (double)ci->nlev[x] * (double)ci->nlev[y];

	for (size_t v = 0; v < ns; v++)
		cells *= (double)ci->nlev[S[v]];
	return cells;
}

/* Check that a query is canonical: x < y, S increasing, none of them x or y, all in range. */
static int pooled_query(const fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                        fb_error *err)
{
	if (!(x < y && y < ci->d) || ns + 2 > ci->d)
		return fb_fail(err, "a pooled table's query must name x < y among %zu variables "
		               "(asked %zu and %zu given %zu)", ci->d, x + 1, y + 1, ns);
	for (size_t k = 0; k < ns; k++)
		if (S[k] >= ci->d || S[k] == x || S[k] == y || (k > 0 && S[k] <= S[k - 1]))
			return fb_fail(err, "a pooled table's conditioning set must be increasing "
			               "variables other than %zu and %zu", x + 1, y + 1);
	return FB_OK;
}

/* Add each stratum's statistic of tab (prod strata of lx x ly cells) to sum, in the order
 * of their codes; the strata that occur into *nstr.  FB_ERR naming a cell that is no count. */
static int pooled_strata(fb_ci *ci, const double *tab, size_t prod, size_t lx, size_t ly,
                         ci_stratum_sum *sum, size_t *nstr, fb_error *err)
{
	size_t cells = lx * ly;

	*nstr = 0;
	for (size_t s = 0; s < prod; s++) {
		const double *t = tab + s * cells;
		double tot = 0.0;
		ci_stratum_sum one;

		for (size_t q = 0; q < cells; q++) {
			if (!is_count(t[q]))
				return fb_fail(err, "cell %zu of a pooled table holds %g, not a whole number "
				               "of rows", s * cells + q + 1, t[q]);
			ci->dws.tab[q] = (uint32_t)t[q];
			tot += t[q];
		}
		if (tot == 0.0)
			continue;
		one = ci_disc_table(ci, ci->dws.tab, lx, ly);
		sum->stat += one.stat;
		sum->df_adj += one.df_adj;
		sum->empty += one.empty;
		(*nstr)++;
	}
	return FB_OK;
}

/* Answer x _||_ y | S from its pooled table and keep the answer. */
int fb_ci_pooled_answer(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                        const double *tab, fb_ci_result *res, fb_error *err)
{
	double prod = 1.0, n = 0.0, cells = fb_ci_pooled_cells(ci, x, y, S, ns);
	ci_stratum_sum sum = { 0.0, 0.0, 0.0 };
	size_t nstr = 0;

	memset(res, 0, sizeof *res);
	res->r = NAN;
	if (pooled_query(ci, x, y, S, ns, err) != FB_OK)
		return FB_ERR;
	for (size_t v = 0; v < ns; v++)
		prod *= (double)ci->nlev[S[v]];
	for (size_t q = 0; q < (size_t)cells; q++)
		n += tab[q];
	if (!ci_disc_small(ci, x, y, prod, n, res)) {
		if (pooled_strata(ci, tab, (size_t)prod, ci->nlev[x], ci->nlev[y], &sum, &nstr,
		                  err) != FB_OK)
			return FB_ERR;
		ci_disc_finish(ci, x, y, ns, prod, nstr, &sum, res);
	}
	return fb_ci_record(ci, x, y, S, ns, res, err);
}
