/* Fisher's z test (ALGORITHMS.md §6.4): the correlation matrix of a dataset, and the test of
 * x and y given S from their partial correlation (ci-partial.c: the Schur complement of S in
 * the sub-matrix over (S, x, y) through a Cholesky factor of R_SS, the same number as
 * -P_xy / sqrt(P_xx P_yy) with P its inverse), or, when that sub-matrix is not positive
 * definite, from its pseudo-inverse.
 *
 * GSL's error handler reports a failed singular value decomposition; the library expects
 * fb_gsl_install_handler to be in place (it records and returns). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

#include "ci-private.h"

/* Largest |r| used, so that z stays finite. */
#define CI_R_MAX (1.0 - 1e-12)

/* Mark the columns of ds that hold one value only, reading the rows in order. */
static void columns_constant(const fb_dataset *ds, bool *constant)
{
	size_t d = ds->d;

	for (size_t j = 0; j < d; j++)
		constant[j] = true;
	for (size_t i = 1; i < ds->n; i++)
		for (size_t j = 0; j < d; j++)
			if (ds->x[i * d + j] != ds->x[j])
				constant[j] = false;
}

/* Centre the columns of ds into a new n x d matrix; NULL when out of memory. */
gsl_matrix *ci_centred_copy(const fb_dataset *ds)
{
	gsl_matrix *X = gsl_matrix_alloc(ds->n, ds->d);
	double *mean = calloc(ds->d, sizeof *mean);

	if (X == NULL || mean == NULL) {
		if (X != NULL)
			gsl_matrix_free(X);
		free(mean);
		return NULL;
	}
	for (size_t i = 0; i < ds->n; i++)
		for (size_t j = 0; j < ds->d; j++)
			mean[j] += ds->x[i * ds->d + j];
	for (size_t j = 0; j < ds->d; j++)
		mean[j] /= (double)ds->n;
	for (size_t i = 0; i < ds->n; i++)
		for (size_t j = 0; j < ds->d; j++)
			gsl_matrix_set(X, i, j, ds->x[i * ds->d + j] - mean[j]);
	free(mean);
	return X;
}

/* Scale the cross-product (upper triangle filled, in R itself) into the correlation matrix's
 * upper triangle, in place: the diagonal is set aside first. */
static void corr_from_cross(double *R, const bool *constant, double *diag, size_t d)
{
	for (size_t i = 0; i < d; i++)
		diag[i] = R[i * d + i];
	for (size_t i = 0; i < d; i++) {
		R[i * d + i] = 1.0;
		for (size_t j = i + 1; j < d; j++) {
			double r = 0.0;

			if (!constant[i] && !constant[j])
				r = R[i * d + j] / sqrt(diag[i] * diag[j]);
			R[i * d + j] = r > 1.0 ? 1.0 : r < -1.0 ? -1.0 : r;
		}
	}
}

/* Pack the upper triangle of the d x d row-major R into its first d (d + 1) / 2 entries, row
 * by row: entry (i, j) moves down to ci_packed_at(d, i, j) <= i d + j, and every entry is
 * read before a later write can reach it (the moves go in increasing order of both). */
static void ci_corr_pack(double *R, size_t d)
{
	for (size_t i = 1; i < d; i++)
		memmove(R + ci_packed_at(d, i, i), R + i * d + i, (d - i) * sizeof *R);
}

/* The packed correlation matrix of a d x d row-major one: a new array of d (d + 1) / 2
 * entries (realloc gives the rest back), NULL when out of memory. */
double *ci_corr_packed(double *R, size_t d)
{
	double *p;

	ci_corr_pack(R, d);
	p = realloc(R, (d * (d + 1) / 2 > 0 ? d * (d + 1) / 2 : 1) * sizeof *R);
	return p != NULL ? p : R;
}

/* Correlation matrix of ds into ci->corr: centre, X^T X by dsyrk straight into a d x d
 * matrix (whose lower half, never written, takes no memory until the packing reaches it),
 * scale its upper triangle, pack it. */
int ci_fisher_init(fb_ci *ci, const fb_dataset *ds, fb_error *err)
{
	size_t d = ds->d;
	gsl_matrix *X = ci_centred_copy(ds);
	gsl_matrix_view C;
	bool *constant = calloc(d, sizeof *constant);
	double *diag = calloc(d, sizeof *diag);
	int ret = FB_OK;

	ci->corr = malloc((d > 0 ? d * d : 1) * sizeof *ci->corr);
	if (X == NULL || constant == NULL || diag == NULL || ci->corr == NULL) {
		ret = fb_fail(err, "out of memory for the correlation matrix of %zu variables", d);
		goto out;
	}
	columns_constant(ds, constant);
	for (size_t j = 0; j < d; j++)
		ci->st.constant_columns += constant[j];
	C = gsl_matrix_view_array(ci->corr, d, d);
	gsl_blas_dsyrk(CblasUpper, CblasTrans, 1.0, X, 0.0, &C.matrix);
	/* the centred copy goes before the packing touches the matrix's lower half */
	gsl_matrix_free(X);
	X = NULL;
	corr_from_cross(ci->corr, constant, diag, d);
	ci->corr = ci_corr_packed(ci->corr, d);
out:
	if (X != NULL)
		gsl_matrix_free(X);
	free(constant);
	free(diag);
	return ret;
}

/* The packed correlation matrix of the object. */
ci_corr ci_fisher_corr(const fb_ci *ci)
{
	ci_corr R = { ci->corr, ci->d, true, ci->lazy };

	return R;
}

/* Free the pseudo-inverse's matrices. */
static void pinv_release(ci_fisher_ws *ws)
{
	if (ws->m != NULL)
		gsl_matrix_free(ws->m);
	if (ws->v != NULL)
		gsl_matrix_free(ws->v);
	if (ws->s != NULL)
		gsl_vector_free(ws->s);
	ws->m = ws->v = NULL;
	ws->s = NULL;
	ws->cap = 0;
}

/* Free Fisher-z's work space. */
void ci_fisher_ws_release(ci_fisher_ws *ws)
{
	ci_partial_memo_release(&ws->pm);
	pinv_release(ws);
}

/* Make room for a k x k pseudo-inverse; FB_ERR when out of memory. */
static int ws_reserve(ci_fisher_ws *ws, size_t k)
{
	size_t cap;

	if (k <= ws->cap)
		return FB_OK;
	cap = ci_room_for(ws->cap, k);
	pinv_release(ws);
	ws->m = gsl_matrix_alloc(cap, cap);
	ws->v = gsl_matrix_alloc(cap, cap);
	ws->s = gsl_vector_alloc(cap);
	if (ws->m == NULL || ws->v == NULL || ws->s == NULL) {
		pinv_release(ws);
		return FB_ERR;
	}
	ws->cap = cap;
	return FB_OK;
}

/* Fill the k x k view M with R over the indices (S, x, y). */
static void fill_sub(gsl_matrix *M, const ci_corr *R, size_t x, size_t y, const size_t *S,
                     size_t ns)
{
	size_t k = ns + 2;

	for (size_t a = 0; a < k; a++) {
		size_t ia = a < ns ? S[a] : a == ns ? x : y;
		double *out = M->data + a * M->tda;

		for (size_t b = 0; b < ns; b++)
			out[b] = ci_corr_get(R, ia, S[b]);
		out[ns] = ci_corr_get(R, ia, x);
		out[ns + 1] = ci_corr_get(R, ia, y);
	}
}

/* r from the Moore-Penrose pseudo-inverse of the k x k view M (overwritten); NaN when
 * P_xx or P_yy is not positive. */
static double pinv_partial(gsl_matrix *M, ci_fisher_ws *ws, size_t k)
{
	gsl_matrix_view V = gsl_matrix_submatrix(ws->v, 0, 0, k, k);
	gsl_vector_view s = gsl_vector_subvector(ws->s, 0, k);
	double pxx = 0.0, pyy = 0.0, pxy = 0.0, tol;

	if (gsl_linalg_SV_decomp_jacobi(M, &V.matrix, &s.vector) != GSL_SUCCESS) {
		fb_gsl_last_error();
		return NAN;
	}
	tol = 1e-12 * gsl_vector_get(&s.vector, 0);
	for (size_t l = 0; l < k; l++) {
		double sl = gsl_vector_get(&s.vector, l);

		if (!(sl > tol))
			continue;
		pxx += gsl_matrix_get(&V.matrix, k - 2, l) * gsl_matrix_get(M, k - 2, l) / sl;
		pyy += gsl_matrix_get(&V.matrix, k - 1, l) * gsl_matrix_get(M, k - 1, l) / sl;
		pxy += gsl_matrix_get(&V.matrix, k - 2, l) * gsl_matrix_get(M, k - 1, l) / sl;
	}
	if (!(pxx > 0.0 && pyy > 0.0))
		return NAN;
	return -pxy / sqrt(pxx * pyy);
}

/* Partial correlation of x and y given S; NaN when it cannot be formed (singular and the
 * setting says dependent, or the pseudo-inverse gives none).  FB_ERR when out of memory. */
static int partial_corr(const ci_corr *R, size_t x, size_t y, const size_t *S, size_t ns,
                        const fb_ci_options *opt, ci_fisher_ws *ws, double *r,
                        unsigned *flags)
{
	size_t k = ns + 2;
	gsl_matrix_view M;
	int ret;

	if (ns == 0) {
		*r = ci_corr_get(R, x, y);
		return FB_OK;
	}
	if ((ret = ci_partial_corr(&ws->pm, R, x, y, S, ns, r)) != CI_PARTIAL_SINGULAR)
		return ret;
	*flags |= FB_CI_SINGULAR;
	*r = NAN;
	if (opt->singular == FB_CI_SINGULAR_PINV) {
		if (ws_reserve(ws, k) != FB_OK)
			return FB_ERR;
		M = gsl_matrix_submatrix(ws->m, 0, 0, k, k);
		fill_sub(&M.matrix, R, x, y, S, ns);
		*r = pinv_partial(&M.matrix, ws, k);
	}
	return FB_OK;
}

/* Fisher-z on a correlation matrix. */
void ci_fisher_compute(const ci_corr *R, size_t n, size_t x, size_t y, const size_t *S,
                       size_t ns, const fb_ci_options *opt, ci_fisher_ws *ws,
                       fb_ci_result *res)
{
	double dof = (double)n - (double)ns - 3.0, r, z;

	memset(res, 0, sizeof *res);
	res->r = NAN;
	if (!(dof > 0.0)) {
		res->p = 1.0;
		res->flags = FB_CI_UNDEFINED;
		return;
	}
	if (partial_corr(R, x, y, S, ns, opt, ws, &r, &res->flags) != FB_OK) {
		res->p = res->stat = NAN;
		res->flags = FB_CI_INVALID;
		return;
	}
	if (isnan(r)) { /* singular, and no partial correlation: dependent */
		res->p = 0.0;
		res->stat = INFINITY;
		return;
	}
	r = r > CI_R_MAX ? CI_R_MAX : r < -CI_R_MAX ? -CI_R_MAX : r;
	z = atanh(r);
	res->r = r;
	res->stat = sqrt(dof) * fabs(z);
	if (opt->fisher_p == FB_CI_FISHER_P_COMPLEMENT)
		res->p = 2.0 * (1.0 - gsl_cdf_ugaussian_P(res->stat));
	else
		res->p = 2.0 * gsl_cdf_ugaussian_Q(res->stat);
	if (res->p > 1.0)
		res->p = 1.0;
}

/* The band of |r| around the critical value of level alpha given ns variables, outside
 * which the decision needs no p-value: the critical statistic t solves 2 Q(t) = alpha (the
 * two p-value forms differ by rounding only, far below the band's relative width of 1e-6),
 * and |r| maps to the statistic sqrt(n - ns - 3) atanh|r| monotonically. */
static void band_set(fb_ci *ci, double alpha, size_t ns)
{
	double t = gsl_cdf_ugaussian_Qinv(alpha / 2.0);
	double s = sqrt((double)ci->n - (double)ns - 3.0);

	ci->band_alpha = alpha;
	ci->band_ns = ns;
	ci->band_lo = tanh(t * (1.0 - 1e-6) / s) * (1.0 - 1e-9);
	ci->band_hi = tanh(t * (1.0 + 1e-6) / s) * (1.0 + 1e-9);
}

/* The band of |r| of (alpha, ns) into *lo and *hi; false when the band cannot tell:
 * n - ns - 3 <= 0, or alpha outside [1e-6, 1) (below 1e-6, 2 (1 - Phi(t))
 * (compat=causal-learn's form) rounds too coarsely for the band). */
bool ci_fisher_band(fb_ci *ci, size_t ns, double alpha, double *lo, double *hi)
{
	if (!((double)ci->n - (double)ns - 3.0 > 0.0) || !(alpha >= 1e-6 && alpha < 1.0))
		return false;
	if (ci->band_alpha != alpha || ci->band_ns != ns)
		band_set(ci, alpha, ns);
	*lo = ci->band_lo;
	*hi = ci->band_hi;
	return true;
}

/* 1 when |r| lies below the band of (alpha, ns) (p > alpha for sure), 0 above it, -1 inside
 * it or when the band cannot tell. */
static int band_decide(fb_ci *ci, double r, size_t ns, double alpha)
{
	double lo, hi;

	if (!ci_fisher_band(ci, ns, alpha, &lo, &hi))
		return -1;
	r = fabs(r);
	if (r < lo)
		return 1;
	return r > hi ? 0 : -1;
}

/* Fisher-z given the empty set at level alpha from the correlation alone. */
int ci_fisher_decide0(fb_ci *ci, size_t x, size_t y, double alpha)
{
	ci_corr R = ci_fisher_corr(ci);

	return band_decide(ci, ci_corr_get(&R, x, y), 0, alpha);
}

/* Fisher-z of x < y given sorted S (ns >= 1) at level alpha from the partial correlation
 * alone (a singular sub-matrix is left to the full test): as ci_fisher_decide0. */
int ci_fisher_decide(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, double alpha)
{
	ci_corr R = ci_fisher_corr(ci);
	double r;

	if (!((double)ci->n - (double)ns - 3.0 > 0.0) ||
	    ci_partial_corr(&ci->fws.pm, &R, x, y, S, ns, &r) != FB_OK)
		return -1;
	return band_decide(ci, r, ns, alpha);
}

/* Fisher-z for a canonical query on the object. */
void ci_fisher_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                   fb_ci_result *res)
{
	ci_corr R = ci_fisher_corr(ci);

	ci_fisher_compute(&R, ci->n, x, y, S, ns, &ci->opt, &ci->fws, res);
}
