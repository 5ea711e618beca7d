/* KCI, the kernel conditional-independence test (ALGORITHMS.md §6.6), with the gamma
 * approximation of its null distribution and the empirical kernel widths: the parts both
 * routes share, the choice of route, and the dense route on n x n matrices.  There, kernels
 * come from a Gram matrix (dsyrk), the regression on Z from a Cholesky inverse, the null's
 * traces from leading eigenpairs of the two residual kernels (LAPACK's dsyevr).  The
 * low-rank route (ci-kci-lowrank.c) is tried first; every step of both is deterministic. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_linalg.h>
#include <lapacke.h>

#include "ci-private.h"

/* Standardise every column of ds (z-score with n - 1; a constant column becomes 0). */
int ci_kci_init(fb_ci *ci, const fb_dataset *ds, fb_error *err)
{
	gsl_matrix *X = ci_centred_copy(ds);

	if (X == NULL)
		return fb_fail(err, "out of memory for a %zu x %zu kernel test", ds->n, ds->d);
	for (size_t j = 0; j < ds->d; j++) {
		gsl_vector_view c = gsl_matrix_column(X, j);
		double ss = 0.0;

		for (size_t i = 0; i < ds->n; i++)
			ss += gsl_vector_get(&c.vector, i) * gsl_vector_get(&c.vector, i);
		if (ds->n > 1 && ss > 0.0)
			gsl_vector_scale(&c.vector, 1.0 / sqrt(ss / (double)(ds->n - 1)));
		else
			gsl_vector_set_zero(&c.vector);
	}
	ci->kdata = X;
	return FB_OK;
}

/* The empirical width of every kernel of the test given ns variables: 1 / w^2 given none,
 * 1 / (w^2 ns) otherwise, w depending on n as causal-learn's defaults. */
double ci_kci_theta(size_t n, size_t ns)
{
	double w;

	if (ns == 0) {
		w = n < 200 ? 0.8 : n < 1200 ? 0.5 : 0.3;
		return 1.0 / (w * w);
	}
	w = n < 200 ? 1.2 : n < 1200 ? 0.7 : 0.4;
	return 1.0 / (w * w * (double)ns);
}

/* The rows a kernel of the test is over, as a new n x *p row-major array (NULL when out of
 * memory): x with half of every S column (CI_KCI_X), y (CI_KCI_Y) or the S columns
 * (CI_KCI_Z), from the standardised data. */
double *ci_kci_points(const fb_ci *ci, enum ci_kci_part part, size_t x, size_t y,
                      const size_t *S, size_t ns, size_t *p)
{
	size_t n = ci->n, first = part == CI_KCI_X ? 1 : 0;
	size_t width = part == CI_KCI_Y ? 1 : part == CI_KCI_X ? ns + 1 : ns;
	double *pts = malloc((n > 0 ? n : 1) * width * sizeof *pts);

	*p = width;
	if (pts == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		double *row = pts + i * width;

		if (part != CI_KCI_Z)
			row[0] = gsl_matrix_get(ci->kdata, i, part == CI_KCI_X ? x : y);
		for (size_t k = 0; part != CI_KCI_Y && k < ns; k++)
			row[first + k] = (part == CI_KCI_X ? 0.5 : 1.0) *
			                 gsl_matrix_get(ci->kdata, i, S[k]);
	}
	return pts;
}

/* Centre K in place: H K H with H = I - 11'/n (K symmetric, full), as the rank-one updates
 * K - m1' - 1m' + (mean of m) 11' with m the row means. */
static void kci_centre(gsl_matrix *K)
{
	size_t n = K->size1, tda = K->tda;
	double *mean = calloc(n, sizeof *mean), all = 0.0, *k = K->data;

	if (mean == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++)
			mean[i] += k[i * tda + j];
		mean[i] /= (double)n;
		all += mean[i];
	}
	all /= (double)n;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			k[i * tda + j] -= mean[i] + mean[j] - all;
	free(mean);
}

/* The centred Gaussian kernel of one part of the test into K (ci-private.h). */
int ci_kci_kernel(const fb_ci *ci, enum ci_kci_part part, size_t x, size_t y,
                  const size_t *S, size_t ns, double theta, gsl_matrix *K)
{
	size_t n = ci->n, p;
	double *pts = ci_kci_points(ci, part, x, y, S, ns, &p);
	gsl_matrix_view A;

	if (pts == NULL)
		return FB_ERR;
	A = gsl_matrix_view_array(pts, n, p);
	gsl_blas_dsyrk(CblasLower, CblasNoTrans, 1.0, &A.matrix, 0.0, K);
	free(pts);
	for (size_t i = 0, tda = K->tda; i < n; i++) {
		double *row = K->data + i * tda, gii = row[i];

		for (size_t j = 0; j < i; j++) {
			double sq = gii + K->data[j * tda + j] - 2.0 * row[j];

			row[j] = exp(-0.5 * theta * (sq > 0.0 ? sq : 0.0));
			K->data[j * tda + i] = row[j];
		}
	}
	for (size_t i = 0; i < n; i++)
		gsl_matrix_set(K, i, i, 1.0);
	kci_centre(K);
	return FB_OK;
}

/* Sum over all entries of A o B. */
static double kci_dot(const gsl_matrix *A, const gsl_matrix *B)
{
	double s = 0.0;

	for (size_t i = 0; i < A->size1; i++) {
		const double *a = A->data + i * A->tda, *b = B->data + i * B->tda;

		for (size_t j = 0; j < A->size2; j++)
			s += a[j] * b[j];
	}
	return s;
}

/* Trace of A. */
static double kci_trace(const gsl_matrix *A)
{
	double s = 0.0;

	for (size_t i = 0; i < A->size1; i++)
		s += gsl_matrix_get(A, i, i);
	return s;
}

/* The gamma approximation's p-value of stat with the null's mean and variance; 1 when the
 * null is degenerate (a constant variable: nothing to test). */
double ci_kci_gamma_p(double stat, double mean, double var)
{
	if (!(mean > 0.0 && var > 0.0 && isfinite(mean) && isfinite(var)))
		return 1.0;
	return gsl_cdf_gamma_Q(stat, mean * mean / var, var / mean);
}

/* Unconditional test of x and y into res; FB_ERR when out of memory. */
static int kci_uncond(fb_ci *ci, size_t x, size_t y, fb_ci_result *res)
{
	size_t n = ci->n;
	double theta = ci_kci_theta(n, 0), nn = (double)n;
	gsl_matrix *Kx = gsl_matrix_alloc(n, n), *Ky = gsl_matrix_alloc(n, n);
	int ret = FB_ERR;

	if (Kx != NULL && Ky != NULL &&
	    ci_kci_kernel(ci, CI_KCI_X, x, y, NULL, 0, theta, Kx) == FB_OK &&
	    ci_kci_kernel(ci, CI_KCI_Y, x, y, NULL, 0, theta, Ky) == FB_OK) {
		double mean = kci_trace(Kx) * kci_trace(Ky) / nn;
		double var = 2.0 * kci_dot(Kx, Kx) * kci_dot(Ky, Ky) / (nn * nn);

		res->stat = kci_dot(Kx, Ky);
		res->p = ci_kci_gamma_p(res->stat, mean, var);
		ret = FB_OK;
	}
	if (Kx != NULL)
		gsl_matrix_free(Kx);
	if (Ky != NULL)
		gsl_matrix_free(Ky);
	return ret;
}

/* R = eps (Kz + eps I)^-1 in place of Kz, by Cholesky; FB_ERR when not positive definite. */
static int kci_regressor(gsl_matrix *Kz)
{
	int status;

	for (size_t i = 0; i < Kz->size1; i++)
		gsl_matrix_set(Kz, i, i, gsl_matrix_get(Kz, i, i) + CI_KCI_EPSILON);
	status = gsl_linalg_cholesky_decomp1(Kz);
	if (status == 0)
		status = gsl_linalg_cholesky_invert(Kz);
	if (status != 0)
		return FB_ERR;
	gsl_matrix_scale(Kz, CI_KCI_EPSILON);
	return FB_OK;
}

/* K := R K R (R and K symmetric), tmp an n x n scratch matrix. */
static void kci_residual(const gsl_matrix *R, gsl_matrix *K, gsl_matrix *tmp)
{
	gsl_blas_dsymm(CblasLeft, CblasLower, 1.0, K, R, 0.0, tmp);
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, R, tmp, 0.0, K);
}

/* A lower bound of the largest eigenvalue of the symmetric K (lower triangle): its largest
 * diagonal entry. */
static double kci_top_bound(const gsl_matrix *K)
{
	double b = 0.0;

	for (size_t i = 0; i < K->size1; i++)
		if (gsl_matrix_get(K, i, i) > b)
			b = gsl_matrix_get(K, i, i);
	return b;
}

/* K := Psi Psi' where Psi = U sqrt(lambda) over the eigenpairs of (K + K')/2 whose value is
 * above CI_KCI_EIG_CUT times the largest; tmp an n x n scratch matrix; FB_ERR when out of
 * memory or when LAPACK fails.  *top receives the largest eigenvalue.  Only the eigenpairs
 * above CI_KCI_EIG_CUT times a lower bound of the largest are computed (LAPACK's dsyevr). */
static int kci_truncate(gsl_matrix *K, gsl_matrix *tmp, double *top)
{
	size_t n = K->size1, keep = 0;
	double *val = malloc(n * sizeof *val), vl;
	lapack_int *support = malloc(2 * n * sizeof *support), m = 0;
	int info = -1;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			gsl_matrix_set(K, i, j, 0.5 * (gsl_matrix_get(K, i, j) + gsl_matrix_get(K, j, i)));
	vl = CI_KCI_EIG_CUT * kci_top_bound(K);
	*top = 0.0;
	/* the row-major lower triangle is LAPACK's column-major upper one; eigenvector a lands
	 * in row a of tmp, in ascending order of value */
	if (val != NULL && support != NULL && vl > 0.0)
		info = LAPACKE_dsyevr(LAPACK_COL_MAJOR, 'V', 'V', 'U', (lapack_int)n, K->data,
		                      (lapack_int)K->tda, vl, INFINITY, 0, 0, 0.0, &m, val,
		                      tmp->data, (lapack_int)tmp->tda, support);
	else if (val != NULL && support != NULL)
		info = 0; /* a zero diagonal: the kernel is zero */
	if (info == 0 && m > 0)
		*top = val[m - 1];
	while (keep < (size_t)m && val[m - 1 - keep] > CI_KCI_EIG_CUT * *top)
		keep++;
	gsl_matrix_set_zero(K);
	if (info == 0 && keep > 0) {
		size_t first = (size_t)m - keep;
		gsl_matrix_const_view psi = gsl_matrix_const_submatrix(tmp, first, 0, keep, n);

		for (size_t a = first; a < (size_t)m; a++) {
			gsl_vector_view u = gsl_matrix_row(tmp, a);

			gsl_vector_scale(&u.vector, sqrt(val[a]));
		}
		gsl_blas_dsyrk(CblasLower, CblasTrans, 1.0, &psi.matrix, 0.0, K);
	}
	free(val);
	free(support);
	return info == 0 ? FB_OK : FB_ERR;
}

/* The null's mean tr(Omega) and variance 2 tr(Omega^2) from the truncated residual kernels
 * A = Psi Psi' and B = Phi Phi' (lower triangles): Omega's traces are those of
 * W W' = A o B. */
static void kci_null_moments(const gsl_matrix *A, const gsl_matrix *B, double *mean,
                             double *var)
{
	double m = 0.0, off = 0.0, diag2 = 0.0;

	for (size_t i = 0; i < A->size1; i++) {
		double c = gsl_matrix_get(A, i, i) * gsl_matrix_get(B, i, i);

		m += c;
		diag2 += c * c;
		for (size_t j = 0; j < i; j++) {
			double e = gsl_matrix_get(A, i, j) * gsl_matrix_get(B, i, j);

			off += e * e;
		}
	}
	*mean = m;
	*var = 2.0 * (diag2 + 2.0 * off);
}

/* The four n x n matrices of a conditional test. */
typedef struct kci_mats {
	gsl_matrix *kx;  /* kernel of [x, z/2], then its residual */
	gsl_matrix *ky;  /* kernel of y, then its residual */
	gsl_matrix *kz;  /* kernel of z, then the regressor R */
	gsl_matrix *tmp; /* scratch */
} kci_mats;

/* Free the matrices of a conditional test. */
static void kci_mats_free(kci_mats *m)
{
	gsl_matrix *all[] = { m->kx, m->ky, m->kz, m->tmp };

	for (size_t k = 0; k < 4; k++)
		if (all[k] != NULL)
			gsl_matrix_free(all[k]);
}

/* The centred kernels of [x, z/2], y and z; FB_ERR when out of memory. */
static int kci_cond_kernels(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                            kci_mats *m)
{
	double theta = ci_kci_theta(ci->n, ns);

	if (ci_kci_kernel(ci, CI_KCI_X, x, y, S, ns, theta, m->kx) != FB_OK ||
	    ci_kci_kernel(ci, CI_KCI_Y, x, y, S, ns, theta, m->ky) != FB_OK ||
	    ci_kci_kernel(ci, CI_KCI_Z, x, y, S, ns, theta, m->kz) != FB_OK)
		return FB_ERR;
	return FB_OK;
}

/* Conditional test of x and y given S (ns >= 1) into res; FB_ERR when out of memory. */
static int kci_cond(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                    fb_ci_result *res)
{
	size_t n = ci->n;
	kci_mats m = { gsl_matrix_alloc(n, n), gsl_matrix_alloc(n, n), gsl_matrix_alloc(n, n),
	               gsl_matrix_alloc(n, n) };
	double mean, var, topx, topy;
	int ret = FB_ERR;

	if (m.kx == NULL || m.ky == NULL || m.kz == NULL || m.tmp == NULL ||
	    kci_cond_kernels(ci, x, y, S, ns, &m) != FB_OK)
		goto out;
	ret = FB_OK;
	if (kci_regressor(m.kz) != FB_OK) {
		res->p = 1.0;
		res->stat = 0.0;
		goto out;
	}
	kci_residual(m.kz, m.kx, m.tmp);
	kci_residual(m.kz, m.ky, m.tmp);
	res->stat = kci_dot(m.kx, m.ky);
	if (kci_truncate(m.kx, m.tmp, &topx) != FB_OK ||
	    kci_truncate(m.ky, m.tmp, &topy) != FB_OK) {
		ret = FB_ERR;
		goto out;
	}
	kci_null_moments(m.kx, m.ky, &mean, &var);
	res->p = topx > 0.0 && topy > 0.0 ? ci_kci_gamma_p(res->stat, mean, var) : 1.0;
out:
	kci_mats_free(&m);
	return ret;
}

/* The dense route on n x n matrices (ci-private.h). */
int ci_kci_dense(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, fb_ci_result *res)
{
	return ns == 0 ? kci_uncond(ci, x, y, res) : kci_cond(ci, x, y, S, ns, res);
}

/* KCI for x < y and sorted S: the low-rank route when its kernels have low rank, else the
 * dense one. */
void ci_kci_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, fb_ci_result *res)
{
	int ret;

	res->df = 0.0;
	res->r = NAN;
	res->flags = 0;
	ret = ci_kci_lowrank(ci, x, y, S, ns, res);
	if (ret == CI_KCI_DENSE)
		ret = ci_kci_dense(ci, x, y, S, ns, res);
	if (ret != FB_OK) {
		res->p = NAN;
		res->stat = NAN;
		res->flags = FB_CI_INVALID;
	}
}
