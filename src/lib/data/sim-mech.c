/* Nonlinear additive-noise mechanisms of the simulator: mlp, mim, gp, gp-add
 * (ALGORITHMS.md §1.4).  Each computes f_j over all rows from its parents' columns. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cblas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>

#include "fedbn/core.h"
#include "fedbn/sim.h"

/* Hidden units of the mlp mechanism. */
#define MECH_HIDDEN 100
/* A gp draw is low-rank when its kernel's factor needs at most n / MECH_RANK_DIV rows. */
#define MECH_RANK_DIV 16
/* The mean variance per row the low-rank draw may leave out: the dense draw's smallest
 * jitter, which it adds to every row. */
#define MECH_RANK_TOL 1e-10

/* One weight ±U[wmin, wmax]: the magnitude, then the sign (minus with probability ½). */
double fb_sim_weight_draw(gsl_rng *r, double wmin, double wmax)
{
	double w = gsl_ran_flat(r, wmin, wmax);

	return gsl_rng_uniform(r) < 0.5 ? -w : w;
}

/* Fill w[0..count-1] with weights ±U[wmin, wmax] in index order. */
static void mech_weights(gsl_rng *r, double wmin, double wmax, double *w, size_t count)
{
	for (size_t k = 0; k < count; k++)
		w[k] = fb_sim_weight_draw(r, wmin, wmax);
}

/* Row a's value of parent q. */
static double mech_x(const double *x, size_t ld, const size_t *pa, size_t a, size_t q)
{
	return x[a * ld + pa[q]];
}

/* mlp: f = sum_h v_h sigmoid(sum_q x_q U_qh); U (np x 100, row-major) then v drawn. */
static int mech_mlp(const double *x, size_t n, size_t ld, const size_t *pa, size_t np,
                    gsl_rng *r, double wmin, double wmax, double *f)
{
	double *u = fb_xcalloc(np * MECH_HIDDEN, sizeof *u), v[MECH_HIDDEN];

	mech_weights(r, wmin, wmax, u, np * MECH_HIDDEN);
	mech_weights(r, wmin, wmax, v, MECH_HIDDEN);
	for (size_t a = 0; a < n; a++) {
		double s = 0.0;

		for (size_t h = 0; h < MECH_HIDDEN; h++) {
			double z = 0.0;

			for (size_t q = 0; q < np; q++)
				z += mech_x(x, ld, pa, a, q) * u[q * MECH_HIDDEN + h];
			s += v[h] / (1.0 + exp(-z));
		}
		f[a] = s;
	}
	free(u);
	return FB_OK;
}

/* mim: f = tanh(x.w1) + cos(x.w2) + sin(x.w3); w1, w2, w3 drawn in that order. */
static int mech_mim(const double *x, size_t n, size_t ld, const size_t *pa, size_t np,
                    gsl_rng *r, double wmin, double wmax, double *f)
{
	double *w = fb_xcalloc(3 * np, sizeof *w);

	mech_weights(r, wmin, wmax, w, 3 * np);
	for (size_t a = 0; a < n; a++) {
		double t[3] = { 0.0, 0.0, 0.0 };

		for (size_t k = 0; k < 3; k++) {
			for (size_t q = 0; q < np; q++)
				t[k] += mech_x(x, ld, pa, a, q) * w[k * np + q];
		}
		f[a] = tanh(t[0]) + cos(t[1]) + sin(t[2]);
	}
	free(w);
	return FB_OK;
}

/* Bytes of an n x n matrix of doubles, or 0 when that overflows size_t. */
static size_t mech_square_bytes(size_t n)
{
	if (n > 0 && n > ((size_t)-1) / sizeof(double) / n)
		return 0;
	return n * n * sizeof(double);
}

/* Lower triangle of the RBF kernel K_ab = exp(-|x_a - x_b|^2 / 2) over the rows of
 * xs (n x p): the Gram matrix by dsyrk, then the squared distances from it. */
static void mech_kernel(const gsl_matrix *xs, gsl_matrix *k)
{
	size_t n = k->size1;

	gsl_blas_dsyrk(CblasLower, CblasNoTrans, 1.0, xs, 0.0, k);
	for (size_t a = 0; a < n; a++) {
		double *row = k->data + a * k->tda, saa = row[a];

		for (size_t b = 0; b < a; b++) {
			double sbb = k->data[b * k->tda + b];
			double d2 = saa + sbb - 2.0 * row[b];

			row[b] = exp(-0.5 * (d2 > 0.0 ? d2 : 0.0));
		}
	}
	for (size_t a = 0; a < n; a++)
		k->data[a * k->tda + a] = 1.0;
}

/* Factor K + eps I (lower Cholesky in k), eps from 1e-10 max K_aa, x10 on failure; the
 * kernel is rebuilt from xs before each new try.  FB_ERR when no jitter up to max K_aa
 * gives a positive definite matrix. */
static int mech_cholesky(const gsl_matrix *xs, gsl_matrix *k, fb_error *err)
{
	size_t n = k->size1;

	/* the diagonal of an RBF kernel with signal variance 1 is 1, so max K_aa = 1 */
	for (double eps = 1e-10; eps <= 1.0; eps *= 10.0) {
		mech_kernel(xs, k);
		for (size_t a = 0; a < n; a++)
			k->data[a * k->tda + a] += eps;
		if (gsl_linalg_cholesky_decomp1(k) == GSL_SUCCESS)
			return FB_OK;
		fb_gsl_last_error(); /* forget the failed try's reason */
	}
	return fb_fail(err, "cannot draw a gp mechanism over n=%zu rows: its kernel stays "
	               "singular with jitter up to 1", n);
}

/* The sentence refusing a kernel over n rows that does not fit in memory. */
static int mech_kernel_refuse(size_t n, fb_error *err)
{
	return fb_fail(err, "cannot draw a gp mechanism over n=%zu rows: out of memory (its "
	               "n x n kernel takes %.3g GB)", n,
	               (double)n * (double)n * sizeof(double) / 1e9);
}

/* Refuse a mechanism whose n x n kernel (gp, gp-add) cannot even be addressed. */
int fb_sim_mechanism_check(enum fb_sem sem, size_t n, fb_error *err)
{
	if ((sem == FB_SEM_GP || sem == FB_SEM_GP_ADD) && mech_square_bytes(n) == 0)
		return mech_kernel_refuse(n, err);
	return FB_OK;
}

/* One draw f ~ N(0, K) over the n rows of xs (n x p), K the RBF kernel: f = L u with
 * L L' = K + eps I (factored in k, n x n scratch) and u ~ N(0, I) drawn from r after the
 * factorisation.  Adds f to out. */
static int mech_gp_draw(const gsl_matrix *xs, gsl_matrix *k, gsl_rng *r, double *out,
                        fb_error *err)
{
	size_t n = xs->size1;
	double *ud;
	gsl_vector_view u;

	if (mech_cholesky(xs, k, err) != FB_OK)
		return FB_ERR;
	if ((ud = calloc(n > 0 ? n : 1, sizeof *ud)) == NULL)
		return mech_kernel_refuse(n, err);
	u = gsl_vector_view_array(ud, n);
	for (size_t a = 0; a < n; a++)
		ud[a] = gsl_ran_gaussian(r, 1.0);
	gsl_blas_dtrmv(CblasLower, CblasNoTrans, CblasNonUnit, k, &u.vector);
	for (size_t a = 0; a < n; a++)
		out[a] += ud[a];
	free(ud);
	return FB_OK;
}

/* The low-rank draw f = G'u, u ~ N(0, I_r) drawn from r after the factorisation, where
 * K ~ G'G (G r x n, fb_kernel_factor_rbf) over the n rows of xs (n x p, row-major) leaves out
 * at most MECH_RANK_TOL of variance per row on average.  Adds f to out and returns true when
 * the factor needs at most n / MECH_RANK_DIV rows; false, nothing drawn, otherwise (or when
 * out of memory). */
static bool mech_gp_lowrank(const double *xs, size_t n, size_t p, gsl_rng *r, double *out)
{
	size_t rmax = n / MECH_RANK_DIV, rank = 0;
	double *g = rmax > 0 ? malloc(rmax * n * sizeof *g) : NULL, *u;

	if (g == NULL)
		return false;
	if (!fb_kernel_factor_rbf(xs, n, p, 1.0, MECH_RANK_TOL, rmax, g, &rank)) {
		free(g);
		return false;
	}
	u = fb_xcalloc(rank, sizeof *u);
	for (size_t k = 0; k < rank; k++)
		u[k] = gsl_ran_gaussian(r, 1.0);
	cblas_dgemv(CblasRowMajor, CblasTrans, (int)rank, (int)n, 1.0, g, (int)n, u, 1, 1.0, out,
	            1);
	free(u);
	free(g);
	return true;
}

/* Copy into xs (n x count, row-major) the parent columns pa[first .. first+count-1] of x. */
static void mech_parent_matrix(const double *x, size_t n, size_t ld, const size_t *pa,
                               size_t first, size_t count, double *xs)
{
	for (size_t a = 0; a < n; a++) {
		for (size_t q = 0; q < count; q++)
			xs[a * count + q] = mech_x(x, ld, pa, a, first + q);
	}
}

/* gp: one joint draw over the parent vectors (gp_add false), or one 1-D draw per parent in
 * parent order, summed (gp_add true).  Each draw is low-rank when its kernel allows
 * (mech_gp_lowrank), else dense on the n x n kernel.  That kernel's memory is reserved first
 * all the same (pages a low-rank draw never touches cost nothing), so that whether a
 * mechanism fits never depends on its data: FB_ERR, with a sentence giving its size, when it
 * does not. */
static int mech_gp(const double *x, size_t n, size_t ld, const size_t *pa, size_t np,
                   gsl_rng *r, bool gp_add, double *f, fb_error *err)
{
	size_t draws = gp_add ? np : 1, width = gp_add ? 1 : np, bytes = mech_square_bytes(n);
	double *kd = bytes == 0 ? NULL : malloc(bytes), *xd;
	gsl_matrix_view k, xs;
	int rc = FB_OK;

	if (kd == NULL)
		return mech_kernel_refuse(n, err);
	fb_blas_single_thread(); /* the draw's bits must not depend on the machine's cores */
	k = gsl_matrix_view_array(kd, n, n);
	if ((xd = calloc(n * width > 0 ? n * width : 1, sizeof *xd)) == NULL) {
		free(kd);
		return mech_kernel_refuse(n, err);
	}
	xs = gsl_matrix_view_array(xd, n, width);
	for (size_t t = 0; t < draws && rc == FB_OK; t++) {
		mech_parent_matrix(x, n, ld, pa, t, width, xd);
		if (!mech_gp_lowrank(xd, n, width, r, f))
			rc = mech_gp_draw(&xs.matrix, &k.matrix, r, f, err);
	}
	free(xd);
	free(kd);
	return rc;
}

/* f over n rows of x (row stride ld) from the parents pa[0..np-1], parameters drawn from r. */
int fb_sim_mechanism(enum fb_sem sem, const double *x, size_t n, size_t ld, const size_t *pa,
                     size_t np, double wmin, double wmax, gsl_rng *r, double *f, fb_error *err)
{
	memset(f, 0, n * sizeof *f);
	if (np == 0)
		return FB_OK;
	switch (sem) {
	case FB_SEM_MLP:
		return mech_mlp(x, n, ld, pa, np, r, wmin, wmax, f);
	case FB_SEM_MIM:
		return mech_mim(x, n, ld, pa, np, r, wmin, wmax, f);
	case FB_SEM_GP:
		return mech_gp(x, n, ld, pa, np, r, false, f, err);
	case FB_SEM_GP_ADD:
		return mech_gp(x, n, ld, pa, np, r, true, f, err);
	default:
		return fb_fail(err, "mechanism %d has no nonlinear form", (int)sem);
	}
}
