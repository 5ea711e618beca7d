/* Linear Gaussian fits: moments on the clients, least squares on the server (plain loops, so
 * that no BLAS kernel moves a bit), and the per-row log-density. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_math.h>
#include <gsl/gsl_randist.h>

#include "bn-private.h"

/* Position of the cross-product of columns a <= b among m columns' upper triangle. */
static size_t tri(size_t m, size_t a, size_t b)
{
	return a * m - a * (a - 1) / 2 + (b - a);
}

/* The exact sums: a sum of products x y is kept as a fixed-point integer in FB_FIT_LIMBS
 * limbs of LIMB_BITS bits, limb l weighing 2^(LOW_EXP + LIMB_BITS l), so that it is the
 * same whatever the rows' grouping and order.  Each product enters as its rounded double and
 * that double's error (an fma), each cut below 2^LOW_EXP towards zero: the cut is a row's
 * own, so the sum stays exact.  A client sends its limbs carried (each in [0, 2^30), the top
 * one signed) as doubles; the clients' limbs add exactly in doubles (below 2^53 for up to
 * 2^22 clients), and the server carries them again and rounds the integer to a double. */
#define LIMB_BITS 30
#define LIMB_MASK ((int64_t)((1 << LIMB_BITS) - 1))
#define LOW_EXP (-450)
/* The largest |x| a column may hold: products stay below 2^298, within the top limb. */
#define FIT_MAX_ABS 0x1p149

/* Add t to the limbs acc (its bits below 2^LOW_EXP dropped towards zero). */
static void limbs_add(int64_t *acc, double t)
{
	int e, pos, i;
	uint64_t mag;
	int64_t sign = t < 0 ? -1 : 1;

	if (t == 0)
		return;
	mag = (uint64_t)ldexp(fabs(frexp(t, &e)), 53); /* |t| = mag 2^(e - 53) */
	pos = e - 53 - LOW_EXP;
	if (pos < 0) {
		if (-pos >= 64)
			return;
		mag >>= -pos;
		pos = 0;
	}
	i = pos / LIMB_BITS;
	acc[i] += sign * (int64_t)((mag << (pos % LIMB_BITS)) & (uint64_t)LIMB_MASK);
	for (mag >>= LIMB_BITS - pos % LIMB_BITS; mag != 0; mag >>= LIMB_BITS)
		acc[++i] += sign * (int64_t)(mag & (uint64_t)LIMB_MASK);
}

/* Carry the limbs: each in [0, 2^LIMB_BITS) but the top one, which keeps the sign. */
static void limbs_carry(int64_t *acc)
{
	for (size_t l = 0; l + 1 < FB_FIT_LIMBS; l++) {
		int64_t r = acc[l] & LIMB_MASK;

		acc[l + 1] += (acc[l] - r) / ((int64_t)1 << LIMB_BITS);
		acc[l] = r;
	}
}

/* The double nearest (to a few units in the last place) carried limbs' value, summed from
 * the top limb down. */
static double limbs_value(const int64_t *acc)
{
	double v = 0;

	for (size_t l = FB_FIT_LIMBS; l-- > 0;)
		v += ldexp((double)acc[l], LOW_EXP + LIMB_BITS * (int)l);
	return v;
}

/* Add x y, exactly, to the limbs acc. */
static void limbs_add_product(int64_t *acc, double x, double y)
{
	double p = x * y;

	limbs_add(acc, p);
	limbs_add(acc, fma(x, y, -p));
}

/* Add family fm's moments over ds's training rows to v: the row count, then the limbs of
 * each sum and cross-product; FB_ERR naming a value too large for the exact sums. */
int fb_fit_moments(const fb_dataset *ds, const fb_family *fm, const size_t *cols, double *v,
                   fb_error *err)
{
	size_t m = fm->nparents + 1, nm = m + m * (m + 1) / 2, L = FB_FIT_LIMBS;
	int64_t *acc = fb_xcalloc(nm * L + 1, sizeof *acc);
	double x[FB_FIT_MAX_FAMILY];

	for (size_t row = 0; row < ds->n; row++) {
		if (fb_dataset_part(ds, row) != FB_PART_TRAIN)
			continue;
		for (size_t a = 0; a < m; a++)
			if (!(fabs(x[a] = fb_dataset_get(ds, row, cols[a])) < FIT_MAX_ABS)) {
				free(acc);
				return fb_fail(err, "column '%s' holds %g, beyond what the fit's exact "
				               "sums take (|x| < 2^149)", ds->vars[cols[a]].name, x[a]);
			}
		v[0] += 1.0;
		for (size_t a = 0; a < m; a++) {
			limbs_add(acc + a * L, x[a]);
			for (size_t b = a; b < m; b++)
				limbs_add_product(acc + (m + tri(m, a, b)) * L, x[a], x[b]);
		}
	}
	for (size_t k = 0; k < nm; k++) {
		limbs_carry(acc + k * L);
		for (size_t l = 0; l < L; l++)
			v[1 + k * L + l] += (double)acc[k * L + l];
	}
	free(acc);
	return FB_OK;
}

/* The moments of a family (the row count, the m sums, the m(m+1)/2 cross-products) from
 * the summed limbs v into w. */
static void moments_of(const double *v, size_t m, double *w)
{
	size_t nm = m + m * (m + 1) / 2, L = FB_FIT_LIMBS;
	int64_t acc[FB_FIT_LIMBS];

	w[0] = v[0];
	for (size_t k = 0; k < nm; k++) {
		for (size_t l = 0; l < L; l++)
			acc[l] = (int64_t)v[1 + k * L + l];
		limbs_carry(acc);
		w[1 + k] = limbs_value(acc);
	}
}

/* The centred cross-products S (m x m, row-major) of a family from its moments v. */
static void centred(const double *v, size_t m, double *S)
{
	double n = v[0];

	for (size_t a = 0; a < m; a++)
		for (size_t b = a; b < m; b++)
			S[a * m + b] = S[b * m + a] = v[1 + m + tri(m, a, b)] - v[1 + a] * v[1 + b] / n;
}

/* Solve S[0..p)x[0..p) beta = S[0..p) column p (S's leading block, m = p + 1 columns) by
 * Cholesky in place; FB_ERR naming the parent whose column the earlier ones determine (a
 * squared pivot at most 1e-10 of its centred sum of squares). */
static int solve(double *S, size_t m, const fb_dataset *names, const fb_family *fm,
                 size_t i, double *beta, fb_error *err)
{
	size_t p = m - 1;

	for (size_t j = 0; j < p; j++) {
		double dj = S[j * m + j], orig = dj;

		for (size_t k = 0; k < j; k++)
			dj -= S[j * m + k] * S[j * m + k];
		if (!(dj > 1e-10 * orig) || orig <= 0)
			return fb_fail(err, "the regression of '%s' is singular: its parent '%s' is "
			               "constant or determined by the parents before it",
			               names->vars[i].name, names->vars[fm->parents[j]].name);
		S[j * m + j] = sqrt(dj);
		for (size_t r = j + 1; r < p; r++) {
			double s = S[r * m + j];

			for (size_t k = 0; k < j; k++)
				s -= S[r * m + k] * S[j * m + k];
			S[r * m + j] = s / S[j * m + j];
		}
	}
	for (size_t j = 0; j < p; j++) { /* L y = b */
		double s = S[j * m + p];

		for (size_t k = 0; k < j; k++)
			s -= S[j * m + k] * beta[k];
		beta[j] = s / S[j * m + j];
	}
	for (size_t j = p; j-- > 0;) { /* L' beta = y */
		double s = beta[j];

		for (size_t k = j + 1; k < p; k++)
			s -= S[k * m + j] * beta[k];
		beta[j] = s / S[j * m + j];
	}
	return FB_OK;
}

/* Fit node i's regression from its family's summed limbs sums. */
static int regress(const fb_fit_job *job, size_t i, const double *sums, fb_gnode *g,
                   fb_error *err)
{
	const fb_family *fm = &job->fam[i];
	size_t m = fm->nparents + 1, p = fm->nparents;
	double S[FB_FIT_MAX_FAMILY * FB_FIT_MAX_FAMILY], syy, rss, n;
	double w[1 + FB_FIT_MAX_FAMILY + FB_FIT_MAX_FAMILY * (FB_FIT_MAX_FAMILY + 1) / 2];

	const double *v = w;

	moments_of(sums, m, w);
	n = v[0];
	if (!(n > (double)p + 1))
		return fb_fail(err, "'%s' has %zu parents and %.0f training rows: its regression "
		               "needs at least %zu rows", job->whole->vars[i].name, p, n, p + 2);
	centred(v, m, S);
	syy = S[p * m + p];
	g->coef = fb_xcalloc(p + 1, sizeof *g->coef);
	if (solve(S, m, job->whole, fm, i, g->coef, err) != FB_OK)
		return FB_ERR;
	rss = syy;
	g->intercept = v[1 + p] / n;
	for (size_t j = 0; j < p; j++) {
		rss -= g->coef[j] * S[j * m + p];
		g->intercept -= g->coef[j] * v[1 + j] / n;
	}
	g->sd = sqrt((rss > 0 ? rss : 0) / (n - (double)p - 1));
	return FB_OK;
}

/* The regressions from the summed moments. */
int fb_fit_regressions(const fb_fit_job *job, fb_bnfit *fit, fb_error *err)
{
	fb_gbn *g = fb_xcalloc(1, sizeof *g);
	fb_graph *dag = fb_graph_alloc(job->d);

	g->d = job->d;
	g->nodes = fb_xcalloc(job->d, sizeof *g->nodes);
	g->order = fb_xcalloc(job->d, sizeof *g->order);
	fit->gbn = g;
	for (size_t i = 0; i < job->d; i++) {
		fb_gnode *nd = &g->nodes[i];
		const fb_family *fm = &job->fam[i];

		nd->name = fb_xstrdup(job->whole->vars[i].name);
		nd->nparents = fm->nparents;
		nd->parents = fb_xcalloc(fm->nparents + 1, sizeof *nd->parents);
		memcpy(nd->parents, fm->parents, fm->nparents * sizeof *nd->parents);
		for (size_t j = 0; j < fm->nparents; j++)
			fb_graph_set_directed(dag, fm->parents[j], i, 1.0);
		if (regress(job, i, job->stats + fm->start, nd, err) != FB_OK) {
			fb_graph_free(dag);
			return FB_ERR;
		}
	}
	fit->n = (size_t)job->stats[job->fam[0].start];
	if (fb_graph_topo_order(dag, g->order, err) != FB_OK) {
		fb_graph_free(dag);
		return FB_ERR;
	}
	fb_graph_free(dag);
	return FB_OK;
}

/* The mean of node v given row i's values of its parents. */
static double gnode_mean(const fb_gnode *nd, const double *x)
{
	double mu = nd->intercept;

	for (size_t j = 0; j < nd->nparents; j++)
		mu += nd->coef[j] * x[nd->parents[j]];
	return mu;
}

/* Log-density of row i of ds under g. */
double fb_gbn_row_loglik(const fb_gbn *g, const fb_dataset *ds, size_t i)
{
	const double *x = ds->x + i * ds->d;
	double ll = 0;

	for (size_t v = 0; v < g->d; v++) {
		const fb_gnode *nd = &g->nodes[v];
		double z = (x[v] - gnode_mean(nd, x)) / nd->sd;

		ll += -0.5 * z * z - log(nd->sd) - 0.5 * log(2 * M_PI);
	}
	return ll;
}

/* Draw n rows of g into ds's x (d columns): d normal draws per row in column order, then
 * the variables in topological order. */
void fb_gbn_sample_rows(const fb_gbn *g, size_t n, gsl_rng *r, double *x)
{
	double *z = fb_xcalloc(g->d, sizeof *z);

	for (size_t row = 0; row < n; row++) {
		double *xr = x + row * g->d;

		for (size_t v = 0; v < g->d; v++)
			z[v] = gsl_ran_gaussian(r, 1.0);
		for (size_t t = 0; t < g->d; t++) {
			size_t v = g->order[t];

			xr[v] = gnode_mean(&g->nodes[v], xr) + g->nodes[v].sd * z[v];
		}
	}
	free(z);
}

/* Free a Gaussian network. */
void fb_gbn_free(fb_gbn *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->d; i++) {
		free(g->nodes[i].name);
		free(g->nodes[i].parents);
		free(g->nodes[i].coef);
	}
	free(g->nodes);
	free(g->order);
	free(g);
}
