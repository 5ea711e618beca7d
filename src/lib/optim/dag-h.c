/* The NOTEARS acyclicity function h(W) = tr(exp(W o W)) - d and its gradient.
 *
 * The exponential is computed by scaling and squaring with a diagonal Padé approximant of
 * degree 3, 5, 7, 9 or 13 chosen from the 1-norm (Higham, "The scaling and squaring method
 * for the matrix exponential revisited", SIAM J. Matrix Anal. Appl. 26(4), 2005), or, for
 * a non-negative matrix such as W o W, from the exact norms of its powers (Al-Mohy and
 * Higham 2009, below), which in NOTEARS' runs mostly picks degree 9 without squaring where
 * the 1-norm asked for degree 13 and one squaring (five products instead of seven); over
 * gsl_blas_dgemm, a blocked LU (gsl_linalg_LU_decomp) and two triangular solves with many
 * right-hand sides (gsl_blas_dtrsm).  All scratch lives in the workspace, so a call does not
 * allocate.
 *
 * Why not gsl_linalg_exponential_ss: it is about 1.4 times faster, but it chooses its Taylor
 * series from the largest entry of A rather than from a norm, so on dense non-negative
 * matrices such as W o W it loses accuracy as d grows: against a long-double reference,
 * relative errors of 1e-7 to 4e-6 at d = 100 (1-norm 0.5 to 4) where this code stays below
 * 4e-16.
 * h(W) is driven to 1e-8 and below, so the accurate version is the one used. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_permutation.h>

#include "fedbn/optim.h"

/* Degrees of the Padé approximants tried, in increasing order. */
static const int pade_degree[] = { 3, 5, 7, 9, 13 };

/* Largest 1-norm for which each degree is accurate to double precision (Higham 2005,
 * Table 2.3, the values theta_m). */
static const double pade_theta[] = {
	1.495585217958292e-2, 2.539398330063230e-1, 9.504178996162932e-1,
	2.097847961257068e0, 5.371920351148152e0,
};

/* Number of degrees in the tables above. */
#define PADE_N (sizeof pade_degree / sizeof pade_degree[0])

/* Highest power whose norm the degree choice needs (2 m + 1 for m = 13). */
#define PNORM_MAX 27

/* Scratch for h(W) on d x d matrices. */
struct fb_dag_h_work {
	size_t d;            /* matrix order */
	gsl_matrix *a;       /* W o W, scaled by 2^-s when squaring is needed */
	gsl_matrix *e;       /* exp(W o W) - I */
	gsl_matrix *a2;      /* a^2 */
	gsl_matrix *a4;      /* a^4 */
	gsl_matrix *a6;      /* a^6 */
	gsl_matrix *u;       /* odd part of the Padé numerator */
	gsl_matrix *v;       /* even part of the Padé numerator */
	gsl_matrix *t;       /* a product in progress */
	gsl_permutation *perm; /* row pivots of the LU factorisation */
	gsl_vector *colsum;  /* d column sums */
	gsl_vector *pv;      /* 1^T a^k / 2^e for the last power k of the norms below */
	gsl_vector *pt;      /* the next such row vector in progress */
	int npow;            /* powers whose 1-norms are known (pnorm[1..npow]) */
	int pexp;            /* the power of two pv is divided by */
	double pnorm[PNORM_MAX + 1]; /* log2 of the 1-norm of a^k (-inf when a^k = 0) */
	double coef[PADE_N][14]; /* Padé coefficients b_0..b_m of each degree */
};

/* Fill c[0..m] with the coefficients of the degree-m Padé numerator of exp, scaled so that
 * c[m] = 1: c[j] = c[j+1] (2m - j)(j + 1) / (m - j), exact in 64-bit integers for m <= 13. */
static void pade_coefficients(int m, double *c)
{
	uint64_t b = 1;
	int j;

	c[m] = 1.0;
	for (j = m - 1; j >= 0; j--) {
		b = b * (uint64_t)(2 * m - j) * (uint64_t)(j + 1) / (uint64_t)(m - j);
		c[j] = (double)b;
	}
}

/* Allocate scratch for d x d matrices; NULL on out-of-memory. */
fb_dag_h_work *fb_dag_h_work_alloc(size_t d)
{
	fb_dag_h_work *w;
	size_t k;

	if (d == 0)
		return NULL;
	w = calloc(1, sizeof *w);
	if (w == NULL)
		return NULL;
	w->d = d;
	w->a = gsl_matrix_alloc(d, d);
	w->e = gsl_matrix_alloc(d, d);
	w->a2 = gsl_matrix_alloc(d, d);
	w->a4 = gsl_matrix_alloc(d, d);
	w->a6 = gsl_matrix_alloc(d, d);
	w->u = gsl_matrix_alloc(d, d);
	w->v = gsl_matrix_alloc(d, d);
	w->t = gsl_matrix_alloc(d, d);
	w->perm = gsl_permutation_alloc(d);
	w->colsum = gsl_vector_alloc(d);
	w->pv = gsl_vector_alloc(d);
	w->pt = gsl_vector_alloc(d);
	if (w->pv == NULL || w->pt == NULL ||
	    w->a == NULL || w->e == NULL || w->a2 == NULL || w->a4 == NULL || w->a6 == NULL ||
	    w->u == NULL || w->v == NULL || w->t == NULL || w->perm == NULL ||
	    w->colsum == NULL) {
		fb_dag_h_work_free(w);
		return NULL;
	}
	for (k = 0; k < PADE_N; k++)
		pade_coefficients(pade_degree[k], w->coef[k]);
	return w;
}

/* Free scratch (NULL is fine). */
void fb_dag_h_work_free(fb_dag_h_work *w)
{
	if (w == NULL)
		return;
	gsl_matrix_free(w->a);
	gsl_matrix_free(w->e);
	gsl_matrix_free(w->a2);
	gsl_matrix_free(w->a4);
	gsl_matrix_free(w->a6);
	gsl_matrix_free(w->u);
	gsl_matrix_free(w->v);
	gsl_matrix_free(w->t);
	gsl_permutation_free(w->perm);
	gsl_vector_free(w->colsum);
	gsl_vector_free(w->pv);
	gsl_vector_free(w->pt);
	free(w);
}

/* C = A B with dgemm. */
static void mat_mul(const gsl_matrix *a, const gsl_matrix *b, gsl_matrix *c)
{
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, a, b, 0.0, c);
}

/* The d*d entries of a workspace matrix as one vector (they are allocated whole, so their
 * rows are contiguous); lets level-1 BLAS do the element-wise work. */
static gsl_vector_view mat_flat(gsl_matrix *m)
{
	return gsl_vector_view_array(m->data, m->size1 * m->size2);
}

/* The 1-norm (largest absolute column sum) of the workspace matrix a; nonneg says that a
 * has no negative entry.  Plain loops, so that the result (which picks the degree and the
 * scaling) does not depend on how a threaded BLAS would split a reduction. */
static double norm1(fb_dag_h_work *w, const gsl_matrix *a, int nonneg)
{
	double *restrict cs = w->colsum->data, best = 0.0;
	size_t d = w->d, i, j;

	for (j = 0; j < d; j++)
		cs[j] = 0.0;
	for (i = 0; i < d; i++) {
		const double *restrict row = a->data + i * a->tda;

		if (nonneg)
			for (j = 0; j < d; j++)
				cs[j] += row[j];
		else
			for (j = 0; j < d; j++)
				cs[j] += fabs(row[j]);
	}
	for (j = 0; j < d; j++)
		if (!(cs[j] <= best))
			best = cs[j];
	return best;
}

/* out = sum over k of c[k] p[k] (np >= 1 workspace matrices) plus c0 times the identity. */
static void mat_combine(gsl_matrix *out, const gsl_matrix *const *p, const double *c,
                        size_t np, double c0)
{
	gsl_vector_view o = mat_flat(out), diag = gsl_matrix_diagonal(out);
	size_t k;

	gsl_matrix_memcpy(out, p[0]);
	gsl_blas_dscal(c[0], &o.vector);
	for (k = 1; k < np; k++) {
		gsl_vector_const_view src = gsl_vector_const_view_array(p[k]->data, o.vector.size);

		gsl_blas_daxpy(c[k], &src.vector, &o.vector);
	}
	gsl_vector_add_constant(&diag.vector, c0);
}

/* Padé numerator parts of degree m <= 9 for a: u = a (b1 I + b3 a^2 + ...), v = b0 I +
 * b2 a^2 + ...; the powers go to a2, a4, a6 and (degree 9) a^8 to t. */
static void pade_low(fb_dag_h_work *w, int m, const double *b)
{
	const gsl_matrix *pw[4];
	double codd[4], ceven[4];
	size_t np = (size_t)(m - 1) / 2, k;

	mat_mul(w->a, w->a, w->a2);
	pw[0] = w->a2;
	if (np >= 2)
		mat_mul(w->a2, w->a2, w->a4);
	pw[1] = w->a4;
	if (np >= 3)
		mat_mul(w->a2, w->a4, w->a6);
	pw[2] = w->a6;
	if (np >= 4)
		mat_mul(w->a4, w->a4, w->t);
	pw[3] = w->t;
	for (k = 0; k < np; k++) {
		codd[k] = b[2 * k + 3];
		ceven[k] = b[2 * k + 2];
	}
	mat_combine(w->v, pw, codd, np, b[1]);
	mat_mul(w->a, w->v, w->u);
	mat_combine(w->v, pw, ceven, np, b[0]);
}

/* Padé numerator parts of degree 13 for a (Higham's evaluation with six products; e is
 * free scratch until the solve). */
static void pade_13(fb_dag_h_work *w, const double *b)
{
	const gsl_matrix *pw[3];
	double c[3];

	mat_mul(w->a, w->a, w->a2);
	mat_mul(w->a2, w->a2, w->a4);
	mat_mul(w->a2, w->a4, w->a6);
	pw[0] = w->a6; pw[1] = w->a4; pw[2] = w->a2;
	/* odd part: a [a6 (b13 a6 + b11 a4 + b9 a2) + b7 a6 + b5 a4 + b3 a2 + b1 I] */
	c[0] = b[13]; c[1] = b[11]; c[2] = b[9];
	mat_combine(w->t, pw, c, 3, 0.0);
	c[0] = b[7]; c[1] = b[5]; c[2] = b[3];
	mat_combine(w->e, pw, c, 3, b[1]);
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, w->a6, w->t, 1.0, w->e);
	mat_mul(w->a, w->e, w->u);
	/* even part: a6 (b12 a6 + b10 a4 + b8 a2) + b6 a6 + b4 a4 + b2 a2 + b0 I */
	c[0] = b[12]; c[1] = b[10]; c[2] = b[8];
	mat_combine(w->t, pw, c, 3, 0.0);
	c[0] = b[6]; c[1] = b[4]; c[2] = b[2];
	mat_combine(w->v, pw, c, 3, b[0]);
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, w->a6, w->t, 1.0, w->v);
}

/* e = exp(a) - I = (v - u)^-1 (2u), by a blocked LU and two triangular solves (working with
 * exp(a) - I keeps h = tr(exp(a)) - d accurate when it is tiny); u and v are consumed (v
 * becomes the factor).  GSL_SUCCESS, or an error code when the denominator is singular. */
static int pade_solve(fb_dag_h_work *w)
{
	gsl_vector_view v = mat_flat(w->v), e = mat_flat(w->e), u = mat_flat(w->u);
	int signum, status;
	size_t i;

	gsl_blas_daxpy(-1.0, &u.vector, &v.vector);
	status = gsl_linalg_LU_decomp(w->v, w->perm, &signum);
	if (status != GSL_SUCCESS)
		return status;
	/* the right-hand sides take the row order of the factorisation: row i of P (2u) is
	 * row perm[i] of 2u (gsl_permute_matrix would permute columns) */
	for (i = 0; i < w->d; i++) {
		gsl_vector_const_view src = gsl_matrix_const_row(w->u, w->perm->data[i]);
		gsl_vector_view dst = gsl_matrix_row(w->e, i);

		gsl_vector_memcpy(&dst.vector, &src.vector);
	}
	gsl_blas_dscal(2.0, &e.vector);
	gsl_blas_dtrsm(CblasLeft, CblasLower, CblasNoTrans, CblasUnit, 1.0, w->v, w->e);
	return gsl_blas_dtrsm(CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, 1.0, w->v,
	                      w->e);
}

/* Forget the power norms of the previous matrix: the next ones are of w->a as it is now. */
static void pnorm_reset(fb_dag_h_work *w)
{
	gsl_vector_set_all(w->pv, 1.0);
	w->npow = 0;
	w->pexp = 0;
}

/* log2 of the 1-norm of a^k for the non-negative workspace matrix a (k <= PNORM_MAX).  For
 * such a matrix the 1-norm of a^k is the largest entry of the row vector 1^T a^k, so the
 * norms come exactly from matrix-vector products, one per power (they only choose the
 * degree and the scaling, from which rounding cannot move them far); a vector leaving
 * [2^-500, 2^500] is rescaled by a power of two (exactly) so that nothing overflows. */
static double pnorm_log2(fb_dag_h_work *w, int k)
{
	while (w->npow < k) {
		double big = 0.0;
		size_t j;
		int e;

		if (w->npow == 0 || w->pnorm[w->npow] != -HUGE_VAL) {
			gsl_blas_dgemv(CblasTrans, 1.0, w->a, w->pv, 0.0, w->pt);
			for (j = 0; j < w->d; j++)
				if (w->pt->data[j] > big)
					big = w->pt->data[j];
		}
		w->npow++;
		w->pnorm[w->npow] = big > 0.0 ? log2(big) + (double)w->pexp : -HUGE_VAL;
		if (big == 0.0)
			continue;
		frexp(big, &e);
		if (e > 500 || e < -500) {
			gsl_blas_dscal(ldexp(1.0, -e), w->pt);
			w->pexp += e;
		}
		gsl_vector_swap(w->pv, w->pt);
	}
	return w->pnorm[k];
}

/* ||a^k||^(1/k) for the non-negative workspace matrix a. */
static double pnorm_root(fb_dag_h_work *w, int k)
{
	return exp2(pnorm_log2(w, k) / (double)k);
}

/* Extra squarings the degree-m approximant needs on a / 2^s so that its truncation error
 * stays at the unit roundoff (Al-Mohy and Higham, "A new scaling and squaring algorithm for
 * the matrix exponential", SIAM J. Matrix Anal. Appl. 31(3), 2009, eq. (5.1)): the leading
 * term of the backward error, (m!)^2 / ((2m)! (2m+1)!) ||a^(2m+1)|| / ||a|| 2^(-2ms),
 * compared with 2^-53.  idx indexes pade_degree. */
static int pade_ell(fb_dag_h_work *w, size_t idx, int s)
{
	int m = pade_degree[idx], k;
	double top = pnorm_log2(w, 2 * m + 1), lc = 0.0, l2;

	if (top == -HUGE_VAL)
		return 0;
	/* log2 of (2m)! (2m+1)! / (m!)^2 */
	for (k = m + 1; k <= 2 * m; k++)
		lc += log2((double)k);
	for (k = 2; k <= 2 * m + 1; k++)
		lc += log2((double)k);
	for (k = 2; k <= m; k++)
		lc -= log2((double)k);
	l2 = top - pnorm_log2(w, 1) - 2.0 * m * s - lc + 53.0;
	return l2 > 0.0 ? (int)ceil(l2 / (2.0 * m)) : 0;
}

/* The degree (index into pade_degree) and squarings for the non-negative workspace matrix a
 * by Al-Mohy and Higham's algorithm 3.1, with the norms of powers exact (pnorm_log2): they
 * fall well below the powers of the norm when a is close to nilpotent, as W o W is near a
 * DAG, so lower degrees and fewer squarings suffice than the norm alone would allow. */
static void pade_choose_nonneg(fb_dag_h_work *w, size_t *idx, int *s)
{
	double d6, d8, eta;

	pnorm_reset(w);
	*s = 0;
	d6 = pnorm_root(w, 6);
	eta = fmax(pnorm_root(w, 4), d6);
	for (*idx = 0; *idx < 2; ++*idx)
		if (eta <= pade_theta[*idx] && pade_ell(w, *idx, 0) == 0)
			return;
	d8 = pnorm_root(w, 8);
	eta = fmax(d6, d8);
	for (*idx = 2; *idx < 4; ++*idx)
		if (eta <= pade_theta[*idx] && pade_ell(w, *idx, 0) == 0)
			return;
	eta = fmin(eta, fmax(d8, pnorm_root(w, 10)));
	if (eta > pade_theta[4])
		*s = (int)ceil(log2(eta / pade_theta[4]));
	*s += pade_ell(w, 4, *s);
}

/* The degree and squarings for any matrix of finite 1-norm nrm (Higham 2005). */
static void pade_choose_norm(double nrm, size_t *idx, int *s)
{
	*s = 0;
	for (*idx = 0; *idx + 1 < PADE_N; ++*idx)
		if (nrm <= pade_theta[*idx])
			return;
	if (nrm > pade_theta[*idx])
		*s = (int)ceil(log2(nrm / pade_theta[*idx]));
}

/* w->e = exp(w->a) - I by scaling and squaring; w->a is overwritten; nonneg tells that
 * w->a has no negative entry.  Squaring works on F = exp - I as F <- F F + 2F.
 * GSL_SUCCESS or an error code (non-finite input or a singular denominator). */
static int expm_pade(fb_dag_h_work *w, int nonneg)
{
	double nrm = norm1(w, w->a, nonneg);
	size_t idx = 0;
	int s = 0, status, k;

	if (!isfinite(nrm))
		return GSL_EDOM;
	if (nonneg)
		pade_choose_nonneg(w, &idx, &s);
	else
		pade_choose_norm(nrm, &idx, &s);
	if (s > 0)
		gsl_matrix_scale(w->a, ldexp(1.0, -s));
	if (idx + 1 < PADE_N)
		pade_low(w, pade_degree[idx], w->coef[idx]);
	else
		pade_13(w, w->coef[idx]);
	status = pade_solve(w);
	if (status != GSL_SUCCESS)
		return status;
	for (k = 0; k < s; k++) {
		gsl_matrix *f = w->e;

		gsl_matrix_memcpy(w->t, f);
		gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, f, f, 2.0, w->t);
		w->e = w->t;
		w->t = f;
	}
	return GSL_SUCCESS;
}

/* True when every entry of the workspace matrix a is finite (its absolute sum is; only
 * finiteness is used, so the summation order does not matter). */
static int all_finite(const gsl_matrix *a)
{
	gsl_vector_const_view v = gsl_vector_const_view_array(a->data, a->size1 * a->size2);

	return isfinite(gsl_blas_dasum(&v.vector));
}

/* True when the workspace matrix a has no negative entry (NaN counts as negative). */
static int no_negative(const gsl_matrix *a)
{
	for (size_t i = 0; i < a->size1; i++)
		for (size_t j = 0; j < a->size2; j++)
			if (!(gsl_matrix_get(a, i, j) >= 0.0))
				return 0;
	return 1;
}

/* E = exp(A) with the workspace's scratch. */
int fb_expm(const gsl_matrix *A, fb_dag_h_work *w, gsl_matrix *E, fb_error *err)
{
	gsl_vector_view diag;
	size_t d;

	if (w == NULL)
		return fb_fail(err, "expm: no workspace");
	d = w->d;
	if (A == NULL || A->size1 != d || A->size2 != d)
		return fb_fail(err, "expm: A must be %zu x %zu", d, d);
	if (E == NULL || E->size1 != d || E->size2 != d || E == A)
		return fb_fail(err, "expm: E must be a distinct %zu x %zu matrix", d, d);
	gsl_matrix_memcpy(w->a, A);
	if (expm_pade(w, no_negative(w->a)) != GSL_SUCCESS || !all_finite(w->e))
		return fb_fail(err, "expm: exp(A) is not finite (A is not finite or too large)");
	gsl_matrix_memcpy(E, w->e);
	diag = gsl_matrix_diagonal(E);
	gsl_vector_add_constant(&diag.vector, 1.0);
	return FB_OK;
}

/* h(W) = tr(exp(W o W)) - d and optionally its gradient (exp(W o W))^T o 2W. */
int fb_dag_h(const gsl_matrix *W, fb_dag_h_work *w, double *h, gsl_matrix *grad, fb_error *err)
{
	size_t d, i, j;
	double tr = 0.0;

	if (w == NULL)
		return fb_fail(err, "h(W): no workspace");
	d = w->d;
	if (W == NULL || W->size1 != d || W->size2 != d)
		return fb_fail(err, "h(W): W must be %zu x %zu", d, d);
	if (grad != NULL && (grad->size1 != d || grad->size2 != d))
		return fb_fail(err, "h(W): grad must be %zu x %zu", d, d);
	for (i = 0; i < d; i++) {
		const double *src = gsl_matrix_const_ptr(W, i, 0);
		double *dst = gsl_matrix_ptr(w->a, i, 0);

		for (j = 0; j < d; j++)
			dst[j] = src[j] * src[j];
	}
	if (expm_pade(w, 1) != GSL_SUCCESS || !all_finite(w->e))
		return fb_fail(err, "h(W): exp(W o W) is not finite (W is not finite or too "
		               "large)");
	for (i = 0; i < d; i++)
		tr += gsl_matrix_get(w->e, i, i);
	*h = tr;
	if (grad != NULL)
		for (i = 0; i < d; i++) {
			const double *src = gsl_matrix_const_ptr(W, i, 0), *f = w->e->data + i;
			double *dst = gsl_matrix_ptr(grad, i, 0);

			for (j = 0; j < d; j++)
				dst[j] = f[j * d] * 2.0 * src[j];
			dst[i] += 2.0 * src[i];
		}
	return FB_OK;
}
