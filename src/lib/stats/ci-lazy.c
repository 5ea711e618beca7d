/* Fisher-z's correlations on demand: a test object that holds no d x d matrix but reads its
 * data's rows and computes an entry when a test asks for it, keeping the entries it computed
 * in a bounded table (cleared when full: an entry computed again has the same bits).
 *
 * Entry (i, j) of ranks i < j is C_ij / sqrt(C_ii C_jj), clipped to [-1, 1], where C_ij is the
 * sum over the rows in order of (x_ti - m_i) (x_tj - m_j), m the column means summed in row
 * order (0 when either column is constant); the diagonal is 1.  Every route (one entry, a
 * list of them in one pass over the rows) sums in that order, so an entry never depends on
 * how it was asked for.  Only the blocks for PC's level 0 (fb_ci_lazy_block) come from BLAS,
 * a few ulps apart from the sums.
 *
 * Variables are ranks: rank r is column col_of[r] of the data. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>

#include "fedbn/ci-lazy.h"
#include "ci-private.h"

/* Most slots of the table of computed entries (a power of two): 32 MB of keys and values. */
#define LAZY_MAX_SLOTS ((size_t)1 << 21)

/* The on-demand source of an object's correlations. */
struct ci_lazy {
	const fb_dataset *ds; /* the rows (not owned), n x d row-major */
	size_t *col_of;       /* d: rank -> column of ds */
	double *mean;         /* d, by rank */
	double *norm;         /* d, by rank: sqrt(C_rr) */
	bool *constant;       /* d, by rank: the column holds one value */
	uint64_t *key;        /* cap: i d + j + 1 of an entry i < j, 0 for an empty slot */
	double *val;          /* cap: its value */
	size_t cap, used;     /* slots and entries */
	double *row;          /* d: one centred row, by rank (a pass over the rows) */
	double *blk[2];       /* level 0's gathered columns, rows of n */
	size_t blkcap[2];     /* their room in columns */
	size_t blkr[2][2];    /* the ranks [a, b) each holds now (a == b: none) */
};

/* Free the source. */
void ci_lazy_free(ci_lazy *z)
{
	if (z == NULL)
		return;
	free(z->col_of);
	free(z->mean);
	free(z->norm);
	free(z->constant);
	free(z->key);
	free(z->val);
	free(z->row);
	free(z->blk[0]);
	free(z->blk[1]);
	free(z);
}

/* The centred value of rank r in row t. */
static inline double centred(const ci_lazy *z, size_t t, size_t r)
{
	return z->ds->x[t * z->ds->d + z->col_of[r]] - z->mean[r];
}

/* Means (summed in row order, as ci_centred_copy), constant columns and norms, reading the
 * rows in order. */
static void lazy_moments(ci_lazy *z)
{
	const fb_dataset *ds = z->ds;
	size_t d = ds->d, n = ds->n;

	for (size_t r = 0; r < d; r++) {
		z->mean[r] = z->norm[r] = 0.0;
		z->constant[r] = true;
	}
	for (size_t t = 0; t < n; t++)
		for (size_t r = 0; r < d; r++) {
			double v = ds->x[t * d + z->col_of[r]];

			z->mean[r] += v;
			if (v != ds->x[z->col_of[r]])
				z->constant[r] = false;
		}
	for (size_t r = 0; r < d; r++)
		z->mean[r] /= (double)n;
	for (size_t t = 0; t < n; t++)
		for (size_t r = 0; r < d; r++) {
			double c = centred(z, t, r);

			z->norm[r] += c * c;
		}
	for (size_t r = 0; r < d; r++)
		z->norm[r] = sqrt(z->norm[r]);
}

/* The correlation of ranks i != j from their cross-product c. */
static double lazy_scale(const ci_lazy *z, size_t i, size_t j, double c)
{
	double r;

	if (z->constant[i] || z->constant[j])
		return 0.0;
	r = c / (z->norm[i] * z->norm[j]);
	return r > 1.0 ? 1.0 : r < -1.0 ? -1.0 : r;
}

/* Slot of key in the table: where it is, or the empty slot where it would go. */
static size_t lazy_slot(const ci_lazy *z, uint64_t key)
{
	size_t s = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (z->cap - 1);

	while (z->key[s] != 0 && z->key[s] != key)
		s = (s + 1) & (z->cap - 1);
	return s;
}

/* Make room for one more entry: double the table, or empty it when at its largest; false
 * when out of memory (nothing is then kept). */
static bool lazy_room(ci_lazy *z)
{
	size_t cap = z->cap ? z->cap * 2 : 1024;
	uint64_t *key, *okey = z->key;
	double *val, *oval = z->val;
	size_t ocap = z->cap;

	if (z->cap > 0 && 2 * (z->used + 1) <= z->cap)
		return true;
	if (ocap >= LAZY_MAX_SLOTS) {
		memset(z->key, 0, z->cap * sizeof *z->key);
		z->used = 0;
		return true;
	}
	key = calloc(cap, sizeof *key);
	val = malloc(cap * sizeof *val);
	if (key == NULL || val == NULL) {
		free(key);
		free(val);
		return false;
	}
	z->key = key;
	z->val = val;
	z->cap = cap;
	for (size_t s = 0; s < ocap; s++)
		if (okey[s] != 0) {
			size_t t = lazy_slot(z, okey[s]);

			z->key[t] = okey[s];
			z->val[t] = oval[s];
		}
	free(okey);
	free(oval);
	return true;
}

/* Keep entry i < j. */
static void lazy_put(ci_lazy *z, size_t i, size_t j, double r)
{
	uint64_t key = (uint64_t)i * z->ds->d + j + 1;
	size_t s;

	if (!lazy_room(z))
		return;
	s = lazy_slot(z, key);
	if (z->key[s] == 0)
		z->used++;
	z->key[s] = key;
	z->val[s] = r;
}

/* Entry (i, j) of the correlation matrix: kept, or computed from the rows and kept. */
double ci_lazy_get(ci_lazy *z, size_t i, size_t j)
{
	double c = 0.0, r;

	if (i == j)
		return 1.0;
	if (i > j) {
		size_t t = i;

		i = j;
		j = t;
	}
	if (z->cap > 0) {
		size_t s = lazy_slot(z, (uint64_t)i * z->ds->d + j + 1);

		if (z->key[s] != 0)
			return z->val[s];
	}
	for (size_t t = 0; t < z->ds->n; t++)
		c += centred(z, t, i) * centred(z, t, j);
	r = lazy_scale(z, i, j, c);
	lazy_put(z, i, j, r);
	return r;
}

/* A Fisher-z object over ds with correlations on demand. */
fb_ci *fb_ci_alloc_lazy(const fb_dataset *ds, const size_t *col_of, const fb_ci_options *opt,
                        fb_error *err)
{
	fb_ci_options o;
	fb_ci *ci;
	ci_lazy *z;
	size_t d = ds->d;

	if (opt != NULL)
		o = *opt;
	else
		fb_ci_options_init(&o);
	if (o.test != FB_CI_AUTO && o.test != FB_CI_FISHER_Z) {
		fb_fail(err, "correlations on demand serve fisher-z only, not %s",
		        fb_ci_test_name(o.test));
		return NULL;
	}
	if (d < 2 || ds->n < 1) {
		fb_fail(err, "correlations on demand need two variables and a row, not %zu x %zu",
		        ds->n, d);
		return NULL;
	}
	o.test = FB_CI_FISHER_Z;
	if ((ci = ci_new(d, ds->n, &o)) == NULL || (z = calloc(1, sizeof *z)) == NULL) {
		fb_ci_free(ci);
		fb_fail(err, "out of memory for a %zu-variable test", d);
		return NULL;
	}
	ci->lazy = z;
	z->ds = ds;
	z->col_of = malloc(d * sizeof *z->col_of);
	z->mean = malloc(d * sizeof *z->mean);
	z->norm = malloc(d * sizeof *z->norm);
	z->constant = malloc(d * sizeof *z->constant);
	z->row = malloc(d * sizeof *z->row);
	if (z->col_of == NULL || z->mean == NULL || z->norm == NULL || z->constant == NULL ||
	    z->row == NULL) {
		fb_ci_free(ci);
		fb_fail(err, "out of memory for a %zu-variable test", d);
		return NULL;
	}
	for (size_t r = 0; r < d; r++)
		z->col_of[r] = col_of != NULL ? col_of[r] : r;
	lazy_moments(z);
	for (size_t r = 0; r < d; r++)
		ci->st.constant_columns += z->constant[r];
	return ci;
}

/* Whether ci computes its correlations on demand. */
bool fb_ci_is_lazy(const fb_ci *ci)
{
	return ci != NULL && ci->lazy != NULL;
}

/* Read the rows from ds from now on (the same values, held elsewhere). */
int fb_ci_lazy_bind(fb_ci *ci, const fb_dataset *ds, fb_error *err)
{
	if (ci->lazy == NULL)
		return fb_fail(err, "the test object keeps its correlation matrix");
	if (ds->n != ci->n || ds->d != ci->d)
		return fb_fail(err, "the rows are %zu x %zu, not %zu x %zu", ds->n, ds->d, ci->n,
		               ci->d);
	ci->lazy->ds = ds;
	ci->lazy->blkr[0][1] = ci->lazy->blkr[1][1] = 0; /* gathered from the old rows */
	return FB_OK;
}

/* The pairs of the list not kept yet, moved to its front; their count. */
static size_t lazy_missing(const ci_lazy *z, size_t *pairs, size_t np)
{
	size_t m = 0;

	for (size_t q = 0; q < np; q++) {
		size_t i = pairs[2 * q], j = pairs[2 * q + 1];

		if (z->cap > 0 && z->key[lazy_slot(z, (uint64_t)i * z->ds->d + j + 1)] != 0)
			continue;
		pairs[2 * m] = i;
		pairs[2 * m + 1] = j;
		m++;
	}
	return m;
}

/* Compute the entries of the list's pairs in one pass over the rows and keep them. */
int fb_ci_lazy_prefetch(fb_ci *ci, size_t *pairs, size_t np, fb_error *err)
{
	ci_lazy *z = ci->lazy;
	size_t d = ci->d, m;
	double *acc;

	if (z == NULL)
		return FB_OK;
	for (size_t q = 0; q < np; q++)
		if (pairs[2 * q] >= pairs[2 * q + 1] || pairs[2 * q + 1] >= d)
			return fb_fail(err, "pair %zu (%zu, %zu) is not i < j < %zu", q + 1,
			               pairs[2 * q], pairs[2 * q + 1], d);
	m = lazy_missing(z, pairs, np);
	if (m > LAZY_MAX_SLOTS / 2)
		m = LAZY_MAX_SLOTS / 2;
	if ((acc = calloc(m > 0 ? m : 1, sizeof *acc)) == NULL)
		return fb_fail(err, "out of memory for %zu correlations", m);
	for (size_t t = 0; t < ci->n; t++) {
		for (size_t r = 0; r < d; r++)
			z->row[r] = centred(z, t, r);
		for (size_t q = 0; q < m; q++)
			acc[q] += z->row[pairs[2 * q]] * z->row[pairs[2 * q + 1]];
	}
	for (size_t q = 0; q < m; q++)
		lazy_put(z, pairs[2 * q], pairs[2 * q + 1],
		         lazy_scale(z, pairs[2 * q], pairs[2 * q + 1], acc[q]));
	free(acc);
	return FB_OK;
}

/* Gather the centred columns of ranks [a, b) into buffer w, one row of n per rank. */
static int lazy_gather(ci_lazy *z, int w, size_t a, size_t b)
{
	size_t n = z->ds->n;

	if (z->blkr[w][0] == a && z->blkr[w][1] == b)
		return FB_OK;
	if (b - a > z->blkcap[w]) {
		double *p = realloc(z->blk[w], (b - a) * n * sizeof *p);

		if (p == NULL)
			return FB_ERR;
		z->blk[w] = p;
		z->blkcap[w] = b - a;
	}
	for (size_t t = 0; t < n; t++)
		for (size_t r = a; r < b; r++)
			z->blk[w][(r - a) * n + t] = centred(z, t, r);
	z->blkr[w][0] = a;
	z->blkr[w][1] = b;
	return FB_OK;
}

/* The correlations of ranks [i0, i1) with [j0, j1) from one matrix product. */
int fb_ci_lazy_block(fb_ci *ci, size_t i0, size_t i1, size_t j0, size_t j1, double *out,
                     fb_error *err)
{
	ci_lazy *z = ci->lazy;
	size_t n = ci->n, bi = i1 - i0, bj = j1 - j0;
	gsl_matrix_view A, B, C;

	if (z == NULL)
		return fb_fail(err, "the test object keeps its correlation matrix");
	if (!(i0 < i1 && i1 <= ci->d && j0 < j1 && j1 <= ci->d))
		return fb_fail(err, "block [%zu, %zu) x [%zu, %zu) is not inside %zu variables", i0,
		               i1, j0, j1, ci->d);
	if (lazy_gather(z, 0, i0, i1) != FB_OK || lazy_gather(z, 1, j0, j1) != FB_OK)
		return fb_fail(err, "out of memory for a block of %zu columns", bi > bj ? bi : bj);
	A = gsl_matrix_view_array(z->blk[0], bi, n);
	B = gsl_matrix_view_array(z->blk[1], bj, n);
	C = gsl_matrix_view_array(out, bi, bj);
	gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, &A.matrix, &B.matrix, 0.0, &C.matrix);
	for (size_t a = 0; a < bi; a++)
		for (size_t b = 0; b < bj; b++)
			out[a * bj + b] = i0 + a == j0 + b ? 1.0 :
			                  lazy_scale(z, i0 + a, j0 + b, out[a * bj + b]);
	return FB_OK;
}

/* Forget every entry kept and give the table's memory back. */
void fb_ci_lazy_forget(fb_ci *ci)
{
	ci_lazy *z = ci->lazy;

	if (z == NULL)
		return;
	free(z->key);
	free(z->val);
	z->key = NULL;
	z->val = NULL;
	z->cap = z->used = 0;
}

/* Give back the memory of the blocks. */
void fb_ci_lazy_blocks_done(fb_ci *ci)
{
	ci_lazy *z = ci->lazy;

	if (z == NULL)
		return;
	for (int w = 0; w < 2; w++) {
		free(z->blk[w]);
		z->blk[w] = NULL;
		z->blkcap[w] = z->blkr[w][0] = z->blkr[w][1] = 0;
	}
}

/* Fisher-z given the empty set for correlation r at level alpha, as fb_ci_independent
 * decides it: by the band where it tells, else by the p-value. */
bool fb_ci_lazy_indep0(fb_ci *ci, double r, double alpha)
{
	double R[4] = { 1.0, r, r, 1.0 }, lo, hi;
	ci_corr C = { R, 2, false, NULL };
	fb_ci_result res;

	if (ci_fisher_band(ci, 0, alpha, &lo, &hi)) {
		if (fabs(r) < lo)
			return true;
		if (fabs(r) > hi)
			return false;
	}
	ci_fisher_compute(&C, ci->n, 0, 1, NULL, 0, &ci->opt, &ci->fws, &res);
	return res.p > alpha;
}

/* Entries the object keeps now. */
size_t fb_ci_lazy_kept(const fb_ci *ci)
{
	return ci->lazy != NULL ? ci->lazy->used : 0;
}
