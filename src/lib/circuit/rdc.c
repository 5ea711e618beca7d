/* The randomized dependence coefficient (Lopez-Paz et al. 2013) as mixed sum-product
 * network learners use it: copula transform, random sine features, and the largest
 * canonical correlation between two variables' features, by BLAS and LAPACK-style GSL
 * routines. */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>

#include "fedbn/circuit.h"
#include "circuit-private.h"

/* Fill u[i] with the empirical CDF of v at v[i]: its rank with ties taking the largest
 * rank, over n.  idx is n slots of scratch. */
static void ecdf_max(const double *v, size_t n, size_t *idx, double *u)
{
	gsl_sort_index(idx, v, 1, n);
	for (size_t a = 0; a < n;) {
		size_t b = a;

		while (b + 1 < n && v[idx[b + 1]] == v[idx[a]])
			b++;
		for (size_t t = a; t <= b; t++)
			u[idx[t]] = (double)(b + 1) / (double)n;
		a = b + 1;
	}
}

/* The copula-transformed design F (n x c, row-major) of a column slice: [ecdf(x), 1] for a
 * continuous variable, [ecdf(1{x = 0}), .., ecdf(1{x = L-1}), 1] for one with L levels. */
static int rdc_design(const fb_column_slice *col, size_t nlevels, double *f, fb_error *err)
{
	size_t n = col->n, c = nlevels ? nlevels + 1 : 2;
	size_t *idx = malloc(n * sizeof *idx);
	double *v = malloc(n * sizeof *v), *u = malloc(n * sizeof *u);
	int rc = FB_OK;

	if (idx == NULL || v == NULL || u == NULL) {
		rc = fb_fail(err, "out of memory for the RDC of %zu rows", n);
		goto out;
	}
	for (size_t j = 0; j + 1 < c; j++) {
		for (size_t i = 0; i < n; i++) {
			double x = col->x[(col->rows != NULL ? col->rows[i] : i) * col->stride];

			v[i] = nlevels ? (double)(x == (double)j) : x;
		}
		ecdf_max(v, n, idx, u);
		for (size_t i = 0; i < n; i++)
			f[i * c + j] = u[i];
	}
	for (size_t i = 0; i < n; i++)
		f[i * c + c - 1] = 1;
out:
	free(idx);
	free(v);
	free(u);
	return rc;
}

/* RDC features of one column slice. */
int fb_rdc_features(const fb_column_slice *col, size_t nlevels, const double *g, size_t k,
                    double s, double *out, fb_error *err)
{
	size_t n = col->n, c = nlevels ? nlevels + 1 : 2;
	double *f = malloc(n * c * sizeof *f);
	gsl_matrix_const_view gv = gsl_matrix_const_view_array(g, c, k);
	gsl_matrix_view fv, zv;

	if (n == 0 || k == 0) {
		free(f);
		return fb_fail(err, "RDC features need at least 1 row and k >= 1, not %zu and %zu",
		               n, k);
	}
	if (f == NULL)
		return fb_fail(err, "out of memory for the RDC of %zu rows", n);
	if (rdc_design(col, nlevels, f, err) != FB_OK) {
		free(f);
		return FB_ERR;
	}
	fv = gsl_matrix_view_array(f, n, c);
	zv = gsl_matrix_view_array(out, n, k);
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, s / (double)c, &fv.matrix, &gv.matrix, 0.0,
	               &zv.matrix);
	for (size_t i = 0; i < n * k; i++)
		out[i] = sin(out[i]);
	free(f);
	return FB_OK;
}

/* Centre the columns of the n x k matrix m in place. */
static void centre_columns(gsl_matrix *m)
{
	for (size_t j = 0; j < m->size2; j++) {
		gsl_vector_view col = gsl_matrix_column(m, j);
		double mean = 0;

		for (size_t i = 0; i < m->size1; i++)
			mean += gsl_vector_get(&col.vector, i);
		gsl_vector_add_constant(&col.vector, -mean / (double)m->size1);
	}
}

/* One variable's centred features and the Cholesky factor of their Gram matrix.  A
 * discrete variable's features depend on its level alone, so its block keeps one row of
 * features per level and each row's level instead of n rows of features. */
typedef struct rdc_block {
	gsl_matrix *x; /* continuous: n x k centred features (NULL for a discrete block) */
	gsl_matrix *l; /* k x k lower Cholesky factor of x'x + eps I */
	int constant;  /* 1 when the features do not vary (the RDC with it is 0) */
	size_t nlev;   /* discrete: levels plus one for values outside them (0: continuous) */
	unsigned *code; /* discrete: each row's level, nlev - 1 for a value outside (n, owned) */
	double *count; /* discrete: rows of each level (nlev, owned) */
	double *t;     /* discrete: nlev x k centred features of each level (owned) */
	uint64_t *bits; /* discrete with levels 0 and 1 only: the rows of level 1 as bits (owned) */
} rdc_block;

/* Free a block. */
static void block_release(rdc_block *b)
{
	gsl_matrix_free(b->x);
	gsl_matrix_free(b->l);
	b->x = b->l = NULL;
	free(b->code);
	free(b->count);
	free(b->t);
	free(b->bits);
	b->bits = NULL;
	b->code = NULL;
	b->count = b->t = NULL;
}

/* The contingency table (a->nlev x b->nlev, zeroed) of two discrete blocks' levels: by
 * population counts of the rows of level 1 when both hold levels 0 and 1 only, otherwise
 * row by row. */
static void block_table(const rdc_block *a, const rdc_block *b, size_t n, double *cnt)
{
	size_t lb = b->nlev;

	if (a->bits != NULL && b->bits != NULL) {
		size_t both = 0, w = (n + 63) / 64;
		double na = a->count[1], nb = b->count[1];

		for (size_t k = 0; k < w; k++)
			both += (size_t)__builtin_popcountll(a->bits[k] & b->bits[k]);
		cnt[0] = (double)n - na - nb + (double)both;
		cnt[1] = nb - (double)both;
		cnt[lb] = na - (double)both;
		cnt[lb + 1] = (double)both;
		return;
	}
	for (size_t i = 0; i < n; i++)
		cnt[a->code[i] * lb + b->code[i]] += 1;
}

/* The k x k cross product of two discrete blocks into m, from their contingency table:
 * the sum over level pairs (u, v) of N_uv times the outer product of the centred features
 * of u and v. */
static void block_cross_discrete(const rdc_block *a, const rdc_block *b, size_t n,
                                 gsl_matrix *m)
{
	size_t la = a->nlev, lb = b->nlev, k = m->size1;
	double *cnt = fb_xcalloc(la * lb, sizeof *cnt);

	block_table(a, b, n, cnt);
	gsl_matrix_set_zero(m);
	for (size_t u = 0; u < la; u++)
		for (size_t v = 0; v < lb; v++) {
			const double *fa = a->t + u * k, *fb = b->t + v * k;
			double c = cnt[u * lb + v];

			if (c == 0)
				continue;
			for (size_t p = 0; p < k; p++)
				for (size_t q = 0; q < k; q++)
					m->data[p * m->tda + q] += c * fa[p] * fb[q];
		}
	free(cnt);
}

/* The k x k cross product of a discrete block d and a continuous one c into m: c's rows
 * summed by d's level, then one outer product per level; m = d'c, or c'd when c_first. */
static void block_cross_mixed(const rdc_block *d, const rdc_block *c, int c_first,
                              gsl_matrix *m)
{
	size_t n = c->x->size1, k = m->size1;
	double *sum = fb_xcalloc(d->nlev * k, sizeof *sum);

	for (size_t i = 0; i < n; i++) {
		const double *row = gsl_matrix_const_ptr(c->x, i, 0);
		double *s = sum + d->code[i] * k;

		for (size_t q = 0; q < k; q++)
			s[q] += row[q];
	}
	gsl_matrix_set_zero(m);
	for (size_t u = 0; u < d->nlev; u++)
		for (size_t p = 0; p < k; p++)
			for (size_t q = 0; q < k; q++)
				m->data[p * m->tda + q] += c_first ? sum[u * k + p] * d->t[u * k + q]
				                                   : d->t[u * k + p] * sum[u * k + q];
	free(sum);
}

/* Add eps = 1e-8 tr / k to the diagonal of the Gram matrix in b->l (lower triangle) and
 * factor it; a zero trace or a failed factorisation marks the block constant. */
static void block_factor(rdc_block *b, size_t k)
{
	double tr = 0;

	for (size_t j = 0; j < k; j++)
		tr += gsl_matrix_get(b->l, j, j);
	if (!(tr > 0)) {
		b->constant = 1;
		return;
	}
	for (size_t j = 0; j < k; j++)
		gsl_matrix_set(b->l, j, j, gsl_matrix_get(b->l, j, j) + 1e-8 * tr / (double)k);
	b->constant = gsl_linalg_cholesky_decomp1(b->l) != GSL_SUCCESS;
}

/* A block from n x k features f: centred, with the Cholesky factor of x'x plus
 * eps = 1e-8 tr / k on the diagonal.  FB_ERR on out of memory. */
static int block_init(rdc_block *b, const double *f, size_t n, size_t k)
{
	b->x = gsl_matrix_alloc(n, k);
	b->l = gsl_matrix_alloc(k, k);
	b->constant = 1;
	if (b->x == NULL || b->l == NULL) {
		block_release(b);
		return FB_ERR;
	}
	for (size_t i = 1; i < n && b->constant; i++)
		b->constant = memcmp(f + i * k, f, k * sizeof *f) == 0;
	if (b->constant)
		return FB_OK; /* every row alike: centring would leave only rounding */
	memcpy(b->x->data, f, n * k * sizeof *f);
	centre_columns(b->x);
	gsl_blas_dsyrk(CblasLower, CblasTrans, 1.0, b->x, 0.0, b->l);
	block_factor(b, k);
	return FB_OK;
}

/* Scratch of one canonical correlation of k x k blocks. */
typedef struct rdc_work {
	gsl_matrix *m;    /* Lx^-1 Cxy Ly^-T, then its left singular vectors */
	gsl_matrix *v;    /* right singular vectors */
	gsl_vector *sv;   /* singular values */
	gsl_vector *work; /* SVD scratch */
} rdc_work;

/* Free the scratch. */
static void work_release(rdc_work *w)
{
	gsl_matrix_free(w->m);
	gsl_matrix_free(w->v);
	gsl_vector_free(w->sv);
	gsl_vector_free(w->work);
}

/* Allocate the scratch; FB_ERR on out of memory (w released). */
static int work_init(rdc_work *w, size_t k)
{
	w->m = gsl_matrix_alloc(k, k);
	w->v = gsl_matrix_alloc(k, k);
	w->sv = gsl_vector_alloc(k);
	w->work = gsl_vector_alloc(k);
	if (w->m == NULL || w->v == NULL || w->sv == NULL || w->work == NULL) {
		work_release(w);
		return FB_ERR;
	}
	return FB_OK;
}

/* The largest singular value of Lx^-1 Cxy Ly^-T (at most 1), 0 when a block is constant,
 * NAN when the SVD fails. */
static double block_cancor(const rdc_block *a, const rdc_block *b, size_t n, rdc_work *w)
{
	if (a->constant || b->constant)
		return 0;
	if (a->nlev > 0 && b->nlev > 0)
		block_cross_discrete(a, b, n, w->m);
	else if (a->nlev > 0)
		block_cross_mixed(a, b, 0, w->m);
	else if (b->nlev > 0)
		block_cross_mixed(b, a, 1, w->m);
	else
		gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1.0, a->x, b->x, 0.0, w->m);
	gsl_blas_dtrsm(CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, 1.0, a->l, w->m);
	gsl_blas_dtrsm(CblasRight, CblasLower, CblasTrans, CblasNonUnit, 1.0, b->l, w->m);
	if (gsl_linalg_SV_decomp(w->m, w->v, w->sv, w->work) != GSL_SUCCESS)
		return NAN;
	return gsl_vector_get(w->sv, 0) > 1 ? 1 : gsl_vector_get(w->sv, 0);
}

/* Largest canonical correlation between two n x k feature blocks. */
int fb_rdc_cancor(const double *fx, const double *fy, size_t n, size_t k, double *out,
                  fb_error *err)
{
	rdc_block a = { 0 }, b = { 0 };
	rdc_work w;
	int rc = FB_OK;

	if (n < 2 || k == 0)
		return fb_fail(err, "a canonical correlation needs at least 2 rows and 1 feature, "
		                    "not %zu and %zu", n, k);
	if (block_init(&a, fx, n, k) != FB_OK || block_init(&b, fy, n, k) != FB_OK ||
	    work_init(&w, k) != FB_OK) {
		block_release(&a);
		block_release(&b);
		return fb_fail(err, "out of memory for the canonical correlation of %zu rows", n);
	}
	*out = block_cancor(&a, &b, n, &w);
	if (isnan(*out))
		rc = fb_fail(err, "the canonical correlation of %zu rows did not converge", n);
	block_release(&a);
	block_release(&b);
	work_release(&w);
	return rc;
}

/* Free the first m blocks and their array. */
static void blocks_free(rdc_block *b, size_t m)
{
	for (size_t j = 0; j < m; j++)
		block_release(&b[j]);
	free(b);
}

/* Each row's level in the code of every discrete block (values outside 0..nlevels-1 take
 * level nlevels), gathered in one pass over the rows, the rows of each level in its count,
 * and the rows of level 1 as bits for a block whose rows hold levels 0 and 1 only. */
static void blocks_codes(rdc_block *b, const fb_column_slice *cols, const size_t *nlevels,
                         size_t nvars)
{
	size_t n = cols[0].n, w = (n + 63) / 64;

	for (size_t j = 0; j < nvars; j++)
		if (nlevels[j] > 0) {
			b[j].nlev = nlevels[j] + 1;
			b[j].code = fb_xcalloc(n ? n : 1, sizeof *b[j].code);
			b[j].count = fb_xcalloc(b[j].nlev, sizeof *b[j].count);
		}
	for (size_t i = 0; i < n; i++) {
		size_t a = i + FB_CIRCUIT_AHEAD;

		for (size_t j = 0; a < n && j < nvars; j++)
			fb_circuit_prefetch(cols[j].x + (cols[j].rows != NULL ? cols[j].rows[a] : a) *
			                                        cols[j].stride);
		for (size_t j = 0; j < nvars; j++) {
			const fb_column_slice *col = &cols[j];
			double v = col->x[(col->rows != NULL ? col->rows[i] : i) * col->stride];
			size_t lv = nlevels[j], l;

			if (lv == 0)
				continue;
			l = v >= 0 && v < (double)lv && v == floor(v) ? (size_t)v : lv;
			b[j].code[i] = (unsigned)l;
			b[j].count[l] += 1;
		}
	}
	for (size_t j = 0; j < nvars; j++) {
		if (b[j].nlev < 2 || b[j].count[0] + b[j].count[1] != (double)n)
			continue;
		b[j].bits = fb_xcalloc(w ? w : 1, sizeof *b[j].bits);
		for (size_t i = 0; i < n; i++)
			b[j].bits[i / 64] |= (uint64_t)b[j].code[i] << (i % 64);
	}
}

/* The sine features of every level of a discrete block into b->t, as fb_rdc_features
 * computes them row by row: the empirical CDF of the indicator of level j is 1 on its own
 * rows (and everywhere when no row has it) and (n - N_j) / n elsewhere. */
static void block_level_features(rdc_block *b, size_t n, const double *g, size_t k, double s)
{
	size_t c = b->nlev; /* nlevels indicators and the constant */

	b->t = fb_xcalloc(b->nlev * k, sizeof *b->t);
	for (size_t l = 0; l < b->nlev; l++)
		for (size_t q = 0; q < k; q++) {
			double z = 0;

			for (size_t j = 0; j + 1 < c; j++) {
				double u = l == j || b->count[j] == 0
				                   ? 1
				                   : (double)(n - (size_t)b->count[j]) / (double)n;

				z += u * g[j * k + q];
			}
			z += g[(c - 1) * k + q];
			b->t[l * k + q] = sin(s / (double)c * z);
		}
}

/* Whether the rows of a discrete block all have the same features. */
static int block_levels_constant(const rdc_block *b, size_t k)
{
	size_t first = SIZE_MAX;

	for (size_t l = 0; l < b->nlev; l++) {
		if (b->count[l] == 0)
			continue;
		if (first == SIZE_MAX)
			first = l;
		else if (memcmp(b->t + l * k, b->t + first * k, k * sizeof *b->t) != 0)
			return 0;
	}
	return 1;
}

/* A discrete block from its level features: centred by the row-weighted mean, Gram
 * matrix and Cholesky factor from the level counts, never n rows of features. */
static int block_discrete(rdc_block *b, size_t n, const double *g, size_t k, double s)
{
	block_level_features(b, n, g, k, s);
	b->constant = block_levels_constant(b, k);
	if (b->constant)
		return FB_OK;
	b->l = gsl_matrix_calloc(k, k);
	if (b->l == NULL)
		return FB_ERR;
	for (size_t q = 0; q < k; q++) {
		double mean = 0;

		for (size_t l = 0; l < b->nlev; l++)
			mean += b->count[l] * b->t[l * k + q];
		mean /= (double)n;
		for (size_t l = 0; l < b->nlev; l++)
			b->t[l * k + q] -= mean;
	}
	for (size_t l = 0; l < b->nlev; l++)
		for (size_t p = 0; p < k; p++)
			for (size_t q = 0; q <= p; q++)
				b->l->data[p * b->l->tda + q] += b->count[l] * b->t[l * k + p] *
				                                 b->t[l * k + q];
	block_factor(b, k);
	return FB_OK;
}

/* Block j of the RDC matrix: projections drawn from r, features, centring, Cholesky. */
static int rdc_block_of(const fb_column_slice *col, size_t nlevels, size_t k, double s,
                        gsl_rng *r, double *f, rdc_block *b, fb_error *err)
{
	size_t c = nlevels ? nlevels + 1 : 2;
	double *g = malloc(c * k * sizeof *g);
	int rc = FB_OK;

	if (g == NULL)
		return fb_fail(err, "out of memory for RDC projections");
	for (size_t i = 0; i < c * k; i++)
		g[i] = gsl_ran_gaussian(r, 1.0);
	if (nlevels > 0) {
		if (block_discrete(b, col->n, g, k, s) != FB_OK)
			rc = fb_fail(err, "out of memory for RDC features of %zu rows", col->n);
	} else {
		rc = fb_rdc_features(col, nlevels, g, k, s, f, err);
		if (rc == FB_OK && block_init(b, f, col->n, k) != FB_OK)
			rc = fb_fail(err, "out of memory for RDC features of %zu rows", col->n);
	}
	free(g);
	return rc;
}

/* Pairwise RDC of nvars column slices. */
int fb_rdc_matrix(const fb_column_slice *cols, const size_t *nlevels, size_t nvars, size_t k,
                  double s, gsl_rng *r, double *out, fb_error *err)
{
	size_t n = nvars ? cols[0].n : 0, made = 0;
	rdc_block *b = calloc(nvars ? nvars : 1, sizeof *b);
	double *f = malloc((n ? n : 1) * (k ? k : 1) * sizeof *f);
	rdc_work w = { 0 };
	int rc = FB_ERR;

	if (b == NULL || f == NULL || work_init(&w, k ? k : 1) != FB_OK) {
		fb_fail(err, "out of memory for the RDC of %zu variables", nvars);
		goto out;
	}
	for (size_t j = 0; j < nvars; j++)
		if (cols[j].n != n || n < 2 || k == 0 || nlevels[j] >= UINT_MAX) {
			fb_fail(err, "the RDC needs slices of one length of at least 2 rows, k >= 1 "
			             "and fewer than %u levels (variable %zu has %zu rows and %zu "
			             "levels, k = %zu)", UINT_MAX, j, cols[j].n, nlevels[j], k);
			goto out;
		}
	blocks_codes(b, cols, nlevels, nvars);
	made = nvars; /* from here every block is released at the end */
	for (size_t j = 0; j < nvars; j++)
		if (rdc_block_of(&cols[j], nlevels[j], k, s, r, f, &b[j], err) != FB_OK)
			goto out;
	for (size_t a = 0; a < nvars; a++) {
		out[a * nvars + a] = 1;
		for (size_t c = a + 1; c < nvars; c++)
			out[a * nvars + c] = out[c * nvars + a] = block_cancor(&b[a], &b[c], n, &w);
	}
	rc = FB_OK;
out:
	blocks_free(b, made);
	free(f);
	work_release(&w);
	return rc;
}
