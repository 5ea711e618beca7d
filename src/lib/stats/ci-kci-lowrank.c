/* KCI's low-rank route (ALGORITHMS.md §6.6): every kernel as a centred factor C (r x n,
 * K ~ C'C) from pivoted incomplete Cholesky, so no n x n kernel is ever formed.  The
 * regression on Z goes through the Woodbury identity, R = eps (C_z'C_z + eps I)^-1 =
 * I - C_z'(eps I + C_z C_z')^-1 C_z, the residual kernels are F'F with F = C R, and their
 * eigenpairs come from the r x r matrices F F' (LAPACK's dsyevd).  When the kernel of x or
 * y needs more than 2n / 3 rows the caller takes the dense route instead: up to that rank
 * the low-rank route is still several times faster (its costs are n r^2 and n^2 r where the
 * dense route's is about 12 n^3), and finding out costs a few percent of the dense route.
 * z's kernel is factored up to rank n / 3; above that its regression is exact, through the
 * Cholesky factor of the n x n kernel (n^3 / 3, the dense route's cheapest step). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <lapacke.h>

#include "ci-private.h"

/* The mean variance the factors of the kernels of x and y may leave out (the kernels'
 * diagonal is 1), and that of z, whose errors the regression magnifies by 1 / eps: with
 * these the p-values agree with the dense route's to a few 1e-7. */
#define KCI_FACTOR_TOL 1e-7
#define KCI_FACTOR_TOL_Z 1e-11
/* Rows of the n x n products the null's variance is summed over at a time. */
#define KCI_BLOCK 128

/* A factor: r rows of n values. */
typedef struct kci_factor {
	double *c; /* r x n, row-major */
	size_t r;  /* rank */
} kci_factor;

/* The centred factor of one kernel of the test into f: false when its rank is above 2n / 3
 * (n / 3 for z's kernel, whose regression then goes exact) or when out of memory. */
static bool kci_factor_of(const fb_ci *ci, enum ci_kci_part part, size_t x, size_t y,
                          const size_t *S, size_t ns, kci_factor *f)
{
	size_t n = ci->n, p, rmax = part == CI_KCI_Z ? n / 3 : 2 * n / 3;
	double tol = part == CI_KCI_Z ? KCI_FACTOR_TOL_Z : KCI_FACTOR_TOL;
	double *pts = ci_kci_points(ci, part, x, y, S, ns, &p);
	bool ok = false;

	f->c = pts == NULL || rmax == 0 ? NULL : malloc(rmax * n * sizeof *f->c);
	if (f->c != NULL)
		ok = fb_kernel_factor_rbf(pts, n, p, ci_kci_theta(n, ns), tol, rmax,
		                          f->c, &f->r);
	free(pts);
	if (!ok) {
		free(f->c);
		f->c = NULL;
		return false;
	}
	for (size_t k = 0; k < f->r; k++) {
		double *row = f->c + k * n, mean = 0.0;

		for (size_t i = 0; i < n; i++)
			mean += row[i];
		mean /= (double)n;
		for (size_t i = 0; i < n; i++)
			row[i] -= mean;
	}
	return true;
}

/* The GSL view of a factor. */
static gsl_matrix_view kci_view(const kci_factor *f, size_t n)
{
	return gsl_matrix_view_array(f->c, f->r, n);
}

/* Sum of squares of the entries of A. */
static double kci_sumsq(const gsl_matrix *A)
{
	double s = 0.0;

	for (size_t i = 0; i < A->size1; i++)
		for (size_t j = 0; j < A->size2; j++)
			s += gsl_matrix_get(A, i, j) * gsl_matrix_get(A, i, j);
	return s;
}

/* |F G'|_F^2 = sum over all entries of (F'F) o (G'G); FB_ERR when out of memory. */
static int kci_cross(const kci_factor *f, const kci_factor *g, size_t n, double *out)
{
	gsl_matrix *P;
	gsl_matrix_view F, G;

	*out = 0.0;
	if (f->r == 0 || g->r == 0)
		return FB_OK;
	P = gsl_matrix_alloc(f->r, g->r);
	if (P == NULL)
		return FB_ERR;
	F = kci_view(f, n);
	G = kci_view(g, n);
	gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, &F.matrix, &G.matrix, 0.0, P);
	*out = kci_sumsq(P);
	gsl_matrix_free(P);
	return FB_OK;
}

/* tr(F'F), the sum of squares of F's entries. */
static double kci_trace(const kci_factor *f, size_t n)
{
	double s = 0.0;

	for (size_t k = 0; k < f->r; k++)
		s += cblas_ddot((int)n, f->c + k * n, 1, f->c + k * n, 1);
	return s;
}

/* Unconditional test from the centred factors of x and y. */
static int kci_lr_uncond(const kci_factor *fx, const kci_factor *fy, size_t n,
                         fb_ci_result *res)
{
	double nn = (double)n, trx = kci_trace(fx, n), try = kci_trace(fy, n), ssx, ssy;

	if (kci_cross(fx, fx, n, &ssx) != FB_OK || kci_cross(fy, fy, n, &ssy) != FB_OK ||
	    kci_cross(fx, fy, n, &res->stat) != FB_OK)
		return FB_ERR;
	res->p = ci_kci_gamma_p(res->stat, trx * try / nn, 2.0 * ssx * ssy / (nn * nn));
	return FB_OK;
}

/* F := F R with R = I - Cz'(eps I + Cz Cz')^-1 Cz, given L (lower Cholesky factor of the
 * middle matrix, rz x rz); FB_ERR when out of memory. */
static int kci_regress(const gsl_matrix *L, const kci_factor *fz, kci_factor *f, size_t n)
{
	gsl_matrix_view F, Z;
	gsl_matrix *P;

	if (f->r == 0 || fz->r == 0)
		return FB_OK;
	P = gsl_matrix_alloc(f->r, fz->r);
	if (P == NULL)
		return FB_ERR;
	F = kci_view(f, n);
	Z = kci_view(fz, n);
	gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, &F.matrix, &Z.matrix, 0.0, P);
	/* P := P (L L')^-1 */
	gsl_blas_dtrsm(CblasRight, CblasLower, CblasTrans, CblasNonUnit, 1.0, L, P);
	gsl_blas_dtrsm(CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, 1.0, L, P);
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, -1.0, P, &Z.matrix, 1.0, &F.matrix);
	gsl_matrix_free(P);
	return FB_OK;
}

/* The lower Cholesky factor of eps I + Cz Cz' (rz x rz, rz >= 1); NULL when out of memory
 * or when LAPACK fails. */
static gsl_matrix *kci_middle(const kci_factor *fz, size_t n)
{
	gsl_matrix_view Z = kci_view(fz, n);
	gsl_matrix *M = gsl_matrix_alloc(fz->r, fz->r);

	if (M == NULL)
		return NULL;
	gsl_blas_dsyrk(CblasLower, CblasNoTrans, 1.0, &Z.matrix, 0.0, M);
	for (size_t i = 0; i < fz->r; i++)
		gsl_matrix_set(M, i, i, gsl_matrix_get(M, i, i) + CI_KCI_EPSILON);
	/* the row-major lower triangle is LAPACK's column-major upper one */
	if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', (lapack_int)fz->r, M->data,
	                   (lapack_int)M->tda) != 0) {
		gsl_matrix_free(M);
		return NULL;
	}
	return M;
}

/* f := Psi' (p x n), the rows sqrt(lambda_a) u_a over the eigenpairs of F'F whose value is
 * above CI_KCI_EIG_CUT times the largest (the largest into *top); FB_ERR when out of memory
 * or when LAPACK fails.  The eigenpairs of the r x r F F' come from LAPACK's divide and
 * conquer (dsyevd), at these sizes (r up to a few hundred) about a quarter faster than
 * dsyevr's MRRR. */
static int kci_eigen_rows(kci_factor *f, size_t n, double *top)
{
	size_t r = f->r, keep = 0;
	gsl_matrix *G = r > 0 ? gsl_matrix_alloc(r, r) : NULL;
	double *val = malloc((r > 0 ? r : 1) * sizeof *val), *psi = NULL;
	gsl_matrix_view F;
	int ret = FB_ERR;

	*top = 0.0;
	if (r == 0) {
		ret = FB_OK;
		goto out;
	}
	if (G == NULL || val == NULL)
		goto out;
	F = kci_view(f, n);
	gsl_blas_dsyrk(CblasLower, CblasNoTrans, 1.0, &F.matrix, 0.0, G);
	/* eigenvector a replaces row a of G, in ascending order of value */
	if (LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', (lapack_int)r, G->data, (lapack_int)G->tda,
	                   val) != 0)
		goto out;
	*top = val[r - 1] > 0.0 ? val[r - 1] : 0.0;
	while (keep < r && val[r - 1 - keep] > CI_KCI_EIG_CUT * *top)
		keep++;
	psi = malloc((keep > 0 ? keep : 1) * n * sizeof *psi);
	if (psi == NULL)
		goto out;
	if (keep > 0) {
		gsl_matrix_view Vk = gsl_matrix_submatrix(G, r - keep, 0, keep, r);
		gsl_matrix_view P = gsl_matrix_view_array(psi, keep, n);

		gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, &Vk.matrix, &F.matrix, 0.0,
		               &P.matrix);
	}
	free(f->c);
	f->c = psi;
	f->r = keep;
	ret = FB_OK;
out:
	if (G != NULL)
		gsl_matrix_free(G);
	free(val);
	return ret;
}

/* The null's mean tr(Omega) and variance 2 tr(Omega^2) from the rows Psi' and Phi':
 * Omega's traces are those of A o B with A = Psi Psi', B = Phi Phi' (n x n), summed over
 * blocks of rows of their lower triangles; FB_ERR when out of memory. */
static int kci_lr_moments(const kci_factor *fx, const kci_factor *fy, size_t n, double *mean,
                          double *var)
{
	double *a = malloc(KCI_BLOCK * n * sizeof *a), *b = malloc(KCI_BLOCK * n * sizeof *b);
	double m = 0.0, off = 0.0, diag2 = 0.0;

	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return FB_ERR;
	}
	for (size_t i0 = 0; i0 < n; i0 += KCI_BLOCK) {
		size_t bs = n - i0 < KCI_BLOCK ? n - i0 : KCI_BLOCK, w = i0 + bs;

		cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)bs, (int)w, (int)fx->r,
		            1.0, fx->c + i0, (int)n, fx->c, (int)n, 0.0, a, (int)w);
		cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)bs, (int)w, (int)fy->r,
		            1.0, fy->c + i0, (int)n, fy->c, (int)n, 0.0, b, (int)w);
		for (size_t i = 0; i < bs; i++) {
			double c = a[i * w + i0 + i] * b[i * w + i0 + i];

			m += c;
			diag2 += c * c;
			for (size_t j = 0; j < i0 + i; j++) {
				double e = a[i * w + j] * b[i * w + j];

				off += e * e;
			}
		}
	}
	free(a);
	free(b);
	*mean = m;
	*var = 2.0 * (diag2 + 2.0 * off);
	return FB_OK;
}

/* The conditional test's remainder once fx and fy hold the residual factors F = C R: the
 * statistic, the eigenrows and the null's moments. */
static int kci_lr_finish(kci_factor *fx, kci_factor *fy, size_t n, fb_ci_result *res)
{
	double mean = 0.0, var = 0.0, topx, topy;

	if (kci_cross(fx, fy, n, &res->stat) != FB_OK || kci_eigen_rows(fx, n, &topx) != FB_OK ||
	    kci_eigen_rows(fy, n, &topy) != FB_OK ||
	    (fx->r > 0 && fy->r > 0 && kci_lr_moments(fx, fy, n, &mean, &var) != FB_OK))
		return FB_ERR;
	res->p = topx > 0.0 && topy > 0.0 ? ci_kci_gamma_p(res->stat, mean, var) : 1.0;
	return FB_OK;
}

/* Conditional test from the centred factors of [x, z/2], y and z. */
static int kci_lr_cond(kci_factor *fx, kci_factor *fy, const kci_factor *fz, size_t n,
                       fb_ci_result *res)
{
	gsl_matrix *L = fz->r > 0 ? kci_middle(fz, n) : NULL;
	int ret = FB_ERR;

	if (fz->r > 0 && L == NULL)
		return FB_ERR;
	if (kci_regress(L, fz, fx, n) == FB_OK && kci_regress(L, fz, fy, n) == FB_OK)
		ret = kci_lr_finish(fx, fy, n, res);
	if (L != NULL)
		gsl_matrix_free(L);
	return ret;
}

/* F := eps F (Kz + eps I)^-1 for the factors of x and y, with the exact centred n x n
 * kernel Kz of the test's S; CI_KCI_DENSE when Kz + eps I is not positive definite (the
 * dense route says what then), FB_ERR when out of memory. */
static int kci_regress_exact(const fb_ci *ci, const size_t *S, size_t ns, kci_factor *f)
{
	size_t n = ci->n;
	gsl_matrix *K = gsl_matrix_alloc(n, n);
	int ret = FB_ERR;

	if (K == NULL ||
	    ci_kci_kernel(ci, CI_KCI_Z, 0, 0, S, ns, ci_kci_theta(n, ns), K) != FB_OK)
		goto out;
	for (size_t i = 0; i < n; i++)
		K->data[i * K->tda + i] += CI_KCI_EPSILON;
	ret = CI_KCI_DENSE;
	if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', (lapack_int)n, K->data, (lapack_int)K->tda) != 0)
		goto out;
	/* a factor's r x n rows are LAPACK's n x r column-major right-hand sides */
	for (size_t k = 0; k < 2; k++) {
		if (f[k].r > 0 &&
		    LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'U', (lapack_int)n, (lapack_int)f[k].r, K->data,
		                   (lapack_int)K->tda, f[k].c, (lapack_int)n) != 0)
			goto out;
		cblas_dscal((int)(f[k].r * n), CI_KCI_EPSILON, f[k].c, 1);
	}
	ret = FB_OK;
out:
	if (K != NULL)
		gsl_matrix_free(K);
	return ret;
}

/* The low-rank route (ci-private.h).  The factor of [x, z/2], the widest, comes first: when
 * one is refused the others are not computed.  When only z's kernel has high rank, the
 * regression on it is exact (Cholesky of its n x n kernel) and the rest low-rank. */
int ci_kci_lowrank(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                   fb_ci_result *res)
{
	kci_factor f[3] = { { NULL, 0 }, { NULL, 0 }, { NULL, 0 } };
	int ret = CI_KCI_DENSE;

	if (kci_factor_of(ci, CI_KCI_X, x, y, S, ns, &f[0]) &&
	    kci_factor_of(ci, CI_KCI_Y, x, y, S, ns, &f[1])) {
		if (ns == 0)
			ret = kci_lr_uncond(&f[0], &f[1], ci->n, res);
		else if (kci_factor_of(ci, CI_KCI_Z, x, y, S, ns, &f[2]))
			ret = kci_lr_cond(&f[0], &f[1], &f[2], ci->n, res);
		else if ((ret = kci_regress_exact(ci, S, ns, f)) == FB_OK)
			ret = kci_lr_finish(&f[0], &f[1], ci->n, res);
	}
	for (size_t k = 0; k < 3; k++)
		free(f[k].c);
	return ret;
}
