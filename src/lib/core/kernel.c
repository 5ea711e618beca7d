/* A low-rank factor of a Gaussian (RBF) kernel matrix by pivoted incomplete Cholesky: only
 * the r columns of the kernel chosen as pivots are ever evaluated, so the cost is n r kernel
 * values and n r^2 flops instead of the n^2 values and n^3 / 3 flops of a full factor.  The
 * Cholesky of a matrix given by a function of two rows, stopped early, is not in GSL or
 * LAPACK (whose pivoted factors need the whole matrix), hence this file. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cblas.h>

#include "fedbn/core.h"

/* Marks a row already taken as a pivot in the remaining diagonal. */
#define KERNEL_TAKEN (-1.0)

/* exp(-theta |x_a - x_b|^2 / 2) for rows a and b of x (p values each). */
static double kernel_rbf(const double *x, size_t p, size_t a, size_t b, double theta)
{
	double s = 0.0;

	for (size_t q = 0; q < p; q++) {
		double t = x[a * p + q] - x[b * p + q];

		s += t * t;
	}
	return exp(-0.5 * theta * s);
}

/* The first row whose remaining diagonal entry is largest (taken rows hold KERNEL_TAKEN);
 * the sum of the positive remaining entries, the remainder's trace, into *trace. */
static size_t kernel_pivot(const double *diag, size_t n, double *trace)
{
	size_t best = 0;
	double t = 0.0;

	for (size_t a = 0; a < n; a++) {
		if (diag[a] > diag[best])
			best = a;
		if (diag[a] > 0.0)
			t += diag[a];
	}
	*trace = t;
	return best;
}

/* Row k of the factor for pivot row piv: the kernel's column piv minus what rows 0..k-1
 * already explain, over the square root of the remaining diagonal; updates diag. */
static void kernel_factor_row(const double *x, size_t n, size_t p, double theta, size_t k,
                              size_t piv, double *diag, double *g)
{
	double *row = g + k * n, root = sqrt(diag[piv]);

	for (size_t a = 0; a < n; a++)
		row[a] = kernel_rbf(x, p, a, piv, theta);
	if (k > 0)
		cblas_dgemv(CblasRowMajor, CblasTrans, (int)k, (int)n, -1.0, g, (int)n, g + piv,
		            (int)n, 1.0, row, 1);
	for (size_t a = 0; a < n; a++) {
		if (diag[a] == KERNEL_TAKEN) {
			row[a] = 0.0;
			continue;
		}
		row[a] /= root;
		diag[a] -= row[a] * row[a];
	}
	row[piv] = root;
	diag[piv] = KERNEL_TAKEN;
}

/* Pivoted incomplete Cholesky of an RBF kernel (see fedbn/core.h). */
bool fb_kernel_factor_rbf(const double *x, size_t n, size_t p, double theta, double tol,
                          size_t rmax, double *g, size_t *rank)
{
	double *diag = malloc((n > 0 ? n : 1) * sizeof *diag);
	bool done = false;
	size_t r = 0;

	if (diag == NULL)
		return false;
	for (size_t a = 0; a < n; a++)
		diag[a] = 1.0;
	while (!done) {
		double trace = 0.0;
		size_t piv = n > 0 ? kernel_pivot(diag, n, &trace) : 0;

		done = n == 0 || trace <= tol * (double)n;
		if (done || r == rmax)
			break;
		kernel_factor_row(x, n, p, theta, r, piv, diag, g);
		r++;
	}
	free(diag);
	*rank = r;
	return done;
}
