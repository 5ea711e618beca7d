/* The degenerate Gaussian embedding (dg-private.h): indicator columns for discrete
 * variables, the columns' covariance, and conditional log-determinants by a Cholesky
 * factor that leaves dependent columns out. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dg-private.h"

/* Free e's memory. */
void dg_embed_release(dg_embed *e)
{
	free(e->start);
	free(e->cov);
	memset(e, 0, sizeof *e);
}

/* For discrete column j of ds: which levels occur (seen, room for its levels); FB_ERR
 * naming the first row that holds no level code. */
static int dg_levels_seen(const fb_dataset *ds, size_t j, unsigned char *seen, fb_error *err)
{
	size_t c = ds->vars[j].nlevels;

	memset(seen, 0, c);
	for (size_t i = 0; i < ds->n; i++) {
		double v = ds->x[i * ds->d + j];

		if (!(v >= 0.0 && v < (double)c) || v != floor(v))
			return fb_fail(err, "row %zu of '%s' holds %g, not a level code below %zu",
			               i + 1, ds->vars[j].name, v, c);
		seen[(size_t)v] = 1;
	}
	return FB_OK;
}

/* The indicator columns of a discrete variable of c levels, seen[v] telling which occur:
 * one per level that occurs but the first, their levels appended to lev at *D. */
static void dg_indicators(size_t c, const unsigned char *seen, size_t *lev, size_t *D)
{
	bool first = true;

	for (size_t v = 0; v < c; v++) {
		if (!seen[v])
			continue;
		if (!first)
			lev[(*D)++] = v;
		first = false;
	}
}

/* The column layout of ds: start[j] for every variable (the level of each discrete
 * variable's indicator column k is lev[start[j] + k]); FB_ERR when out of memory. */
static int dg_layout(dg_embed *e, const fb_dataset *ds, size_t **lev, fb_error *err)
{
	size_t cmax = 1, D = 0;
	unsigned char *seen;

	for (size_t j = 0; j < ds->d; j++)
		if (ds->vars[j].kind == FB_DISCRETE && ds->vars[j].nlevels > cmax)
			cmax = ds->vars[j].nlevels;
	e->start = calloc(ds->d + 1, sizeof *e->start);
	*lev = calloc(ds->d * cmax + 1, sizeof **lev);
	seen = calloc(cmax, 1);
	if (e->start == NULL || *lev == NULL || seen == NULL) {
		free(seen);
		return fb_fail(err, "out of memory for the indicator columns of %zu variables",
		               ds->d);
	}
	for (size_t j = 0; j < ds->d; j++) {
		e->start[j] = D;
		if (ds->vars[j].kind != FB_DISCRETE) {
			D++;
			continue;
		}
		if (dg_levels_seen(ds, j, seen, err) != FB_OK) {
			free(seen);
			return FB_ERR;
		}
		dg_indicators(ds->vars[j].nlevels, seen, *lev, &D);
	}
	e->start[ds->d] = D;
	e->D = D;
	free(seen);
	return FB_OK;
}

/* Row i of ds embedded into row (D values). */
static void dg_row(const dg_embed *e, const fb_dataset *ds, const size_t *lev, size_t i,
                   double *row)
{
	for (size_t j = 0; j < ds->d; j++) {
		double v = ds->x[i * ds->d + j];
		size_t a = e->start[j], b = e->start[j + 1];

		if (ds->vars[j].kind != FB_DISCRETE) {
			row[a] = v;
			continue;
		}
		for (size_t k = a; k < b; k++)
			row[k] = v == (double)lev[k] ? 1.0 : 0.0;
	}
}

/* The embedded columns' means and covariance (divisor n) into e->cov, two passes over the
 * rows in plain loops. */
static int dg_moments(dg_embed *e, const fb_dataset *ds, const size_t *lev, fb_error *err)
{
	size_t D = e->D;
	double *mean = calloc(D + 1, sizeof *mean), *row = calloc(D + 1, sizeof *row);

	e->cov = calloc(D * D + 1, sizeof *e->cov);
	if (mean == NULL || row == NULL || e->cov == NULL) {
		free(mean);
		free(row);
		return fb_fail(err, "out of memory for a %zu x %zu covariance", D, D);
	}
	for (size_t i = 0; i < ds->n; i++) {
		dg_row(e, ds, lev, i, row);
		for (size_t a = 0; a < D; a++)
			mean[a] += row[a];
	}
	for (size_t a = 0; a < D; a++)
		mean[a] /= (double)ds->n;
	for (size_t i = 0; i < ds->n; i++) {
		dg_row(e, ds, lev, i, row);
		for (size_t a = 0; a < D; a++)
			row[a] -= mean[a];
		for (size_t a = 0; a < D; a++)
			for (size_t b = a; b < D; b++)
				e->cov[a * D + b] += row[a] * row[b];
	}
	for (size_t a = 0; a < D; a++)
		for (size_t b = a; b < D; b++)
			e->cov[b * D + a] = e->cov[a * D + b] /= (double)ds->n;
	free(mean);
	free(row);
	return FB_OK;
}

/* Embed ds. */
int dg_embed_init(dg_embed *e, const fb_dataset *ds, fb_error *err)
{
	size_t *lev = NULL;
	int ret;

	memset(e, 0, sizeof *e);
	e->d = ds->d;
	e->n = ds->n;
	ret = dg_layout(e, ds, &lev, err);
	if (ret == FB_OK)
		ret = dg_moments(e, ds, lev, err);
	free(lev);
	if (ret != FB_OK)
		dg_embed_release(e);
	return ret;
}

/* Embedded columns of the nv variables v. */
size_t dg_columns(const dg_embed *e, const size_t *v, size_t nv)
{
	size_t m = 0;

	for (size_t t = 0; t < nv; t++)
		m += dg_width(e, v[t]);
	return m;
}

/* The embedded columns of the given then the target variables, into col; their count. */
static size_t dg_gather(const dg_embed *e, const size_t *given, size_t ng,
                        const size_t *target, size_t tv, size_t *col)
{
	size_t m = 0;

	for (size_t t = 0; t < ng + tv; t++) {
		size_t j = t < ng ? given[t] : target[t - ng];

		for (size_t c = e->start[j]; c < e->start[j + 1]; c++)
			col[m++] = c;
	}
	return m;
}

/* Free w's memory. */
void dg_work_release(dg_work *w)
{
	free(w->col);
	free(w->L);
	memset(w, 0, sizeof *w);
}

/* Room in w for m columns; FB_ERR when out of memory. */
static int dg_work_reserve(dg_work *w, size_t m)
{
	size_t *col;
	double *L;

	if (m <= w->cap)
		return FB_OK;
	col = realloc(w->col, m * sizeof *col);
	if (col != NULL)
		w->col = col;
	L = realloc(w->L, m * m * sizeof *L);
	if (L != NULL)
		w->L = L;
	if (col == NULL || L == NULL)
		return FB_ERR;
	w->cap = m;
	return FB_OK;
}

/* Row r of the Cholesky factor L (m x m, row-major) of the covariance over col, rows
 * before r done (a row left out is all zero); its squared pivot. */
static double dg_chol_row(const dg_embed *e, const size_t *col, size_t r, double *L, size_t m)
{
	const double *C = e->cov;
	size_t D = e->D;
	double piv;

	for (size_t q = 0; q < r; q++) {
		double s = C[col[r] * D + col[q]], dq = L[q * m + q];

		for (size_t k = 0; k < q; k++)
			s -= L[r * m + k] * L[q * m + k];
		L[r * m + q] = dq > 0 ? s / dq : 0;
	}
	piv = C[col[r] * D + col[r]];
	for (size_t k = 0; k < r; k++)
		piv -= L[r * m + k] * L[r * m + k];
	return piv;
}

/* Whether row r (target position t, or given when t < 0) of the factor is kept, its squared
 * pivot piv made what the row keeps. */
static bool dg_keep(double var, double *piv, long t, enum dg_mode mode, unsigned char *skip)
{
	double tol = DG_TOL * var;

	if (t >= 0 && skip[t])
		return false;
	if (var > 0 && *piv > tol)
		return true;
	if (t >= 0 && mode == DG_FLOOR && var > 0) {
		*piv = tol;
		return true;
	}
	if (t >= 0)
		skip[t] = 1;
	return false;
}

/* The factor over the given then the target columns (dg-private.h). */
size_t dg_factor(const dg_embed *e, const size_t *given, size_t ng, const size_t *target,
                 size_t tv, enum dg_mode mode, unsigned char *skip, double *lp,
                 size_t *given_kept, dg_work *w)
{
	size_t mg = dg_columns(e, given, ng), m = mg + dg_columns(e, target, tv), gk = 0;

	if (dg_work_reserve(w, m) != FB_OK)
		return (size_t)-1;
	dg_gather(e, given, ng, target, tv, w->col);
	memset(w->L, 0, m * m * sizeof *w->L);
	for (size_t r = 0; r < m; r++) {
		double piv = dg_chol_row(e, w->col, r, w->L, m);
		long t = r < mg ? -1 : (long)(r - mg);

		if (!dg_keep(e->cov[w->col[r] * e->D + w->col[r]], &piv, t, mode, skip)) {
			memset(w->L + r * m, 0, (r + 1) * sizeof *w->L); /* left out */
			if (t >= 0)
				lp[t] = 0;
			continue;
		}
		w->L[r * m + r] = sqrt(piv);
		if (t >= 0)
			lp[t] = log(piv);
		else
			gk++;
	}
	if (given_kept != NULL)
		*given_kept = gk;
	return m - mg;
}
